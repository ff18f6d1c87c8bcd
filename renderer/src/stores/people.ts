import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { UserInfo } from '../../../server/auth/user-types.ts';
import { request } from '../api/client.ts';

export type { UserInfo };
export type Role = UserInfo['Role'];
export const ROLE_LABELS: Record<Role, string> = {
  administrator: 'Administrator (everything)',
  supervisor: 'Supervisor (CATI and project opt-out lists)',
  viewer: 'Viewer (reads only)',
};

/** Settings → People (`/admin/users`, CONTRACT §15): the accounts, and the changes an administrator makes. */
export const usePeopleStore = defineStore('people', () => {
  const users = ref<UserInfo[]>([]);
  const loading = ref(false);

  async function load(): Promise<void> {
    loading.value = true;
    try {
      users.value = (await request<{ value: UserInfo[] }>('GET', '/admin/users')).value;
    } finally {
      loading.value = false;
    }
  }

  function replace(user: UserInfo) {
    users.value = users.value.map((u) => (u.UserId === user.UserId ? user : u));
  }

  /** Adds a user; answers it. */
  async function add(input: { Name: string; DisplayName?: string; Role: Role; Password: string }): Promise<UserInfo> {
    const user = await request<UserInfo>('POST', '/admin/users', { body: input });
    users.value = [...users.value, user].sort((a, b) => a.Name.localeCompare(b.Name));
    return user;
  }

  /** Changes a user's role, lock or password (a lock or a new password ends its sessions on the server). */
  async function change(id: number, patch: { Role?: Role; Locked?: boolean; Password?: string; DisplayName?: string }): Promise<UserInfo> {
    const user = await request<UserInfo>('PATCH', `/admin/users/${id}`, { body: patch });
    replace(user);
    return user;
  }

  return { users, loading, load, add, change };
});
