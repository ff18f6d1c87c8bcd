import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { UserInfo } from '../../../common/user-types.ts';
import { request } from '../api/client.ts';
import { useResourceState } from './resource-state.ts';

export type { UserInfo };
export type Role = UserInfo['Role'];
export const ROLE_LABELS: Record<Role, string> = {
  administrator: 'people.roleLong.administrator',
  supervisor: 'people.roleLong.supervisor',
  viewer: 'people.roleLong.viewer',
};

/** Settings → People (`/admin/users`, docs/people.md#users): the accounts, and the changes an administrator makes. */
export const usePeopleStore = defineStore('people', () => {
  const users = ref<UserInfo[]>([]);
  /** The list's loading state (loading / empty / failed / offline, stale after a failed refresh). */
  const resource = useResourceState();
  const loading = computed(() => resource.pending);

  const load = (): Promise<void> =>
    resource.track(async () => {
      users.value = (await request<{ value: UserInfo[] }>('GET', '/admin/users')).value;
    }, () => users.value.length === 0);

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

  return { users, resource, loading, load, add, change };
});
