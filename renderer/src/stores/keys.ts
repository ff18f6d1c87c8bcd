import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiKeyInfo, Permission } from '../../../common/key-types.ts';
import { request } from '../api/client.ts';
import { useResourceState } from './resource-state.ts';

export type { ApiKeyInfo, Permission };

/** The permissions a key can hold, with what each allows (docs/people.md#permissions). */
export const PERMISSION_CHOICES: readonly { name: Permission; help: string }[] = [
  { name: 'cati_administrate', help: 'apiKeys.help.cati_administrate' },
  { name: 'cati_integrate', help: 'apiKeys.help.cati_integrate' },
  { name: 'cati_read', help: 'apiKeys.help.cati_read' },
  { name: 'optout_administrate', help: 'apiKeys.help.optout_administrate' },
  { name: 'company_administrate', help: 'apiKeys.help.company_administrate' },
];

/** `POST /admin/keys` answer: the key, shown once, with its record. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string;
}

export interface ApiKeyDraft {
  name: string;
  permissions: Permission[];
  /** Comma- or space-separated project ids as typed; empty = every project. */
  projects: string;
}

/** Splits typed project ids ("p1001, p1002") into the list the API takes; null when none were typed. */
export function splitProjects(text: string): string[] | null {
  const ids = text.split(/[\s,;]+/).filter(Boolean);
  return ids.length ? ids : null;
}

/** API keys of the Settings screen (`/admin/keys`). The created key is returned, never kept here. */
export const useKeysStore = defineStore('keys', () => {
  const items = ref<ApiKeyInfo[]>([]);
  /** The list's loading state (loading / empty / failed / offline, stale after a failed refresh). */
  const resource = useResourceState();
  const loading = computed(() => resource.pending);

  const load = () => resource.track(async () => (items.value = await request<ApiKeyInfo[]>('GET', '/admin/keys')), () => items.value.length === 0);

  /** Creates a key; the list is updated locally so that a failed refresh can never lose the one-time key. */
  async function create(draft: ApiKeyDraft): Promise<CreatedApiKey> {
    const projects = splitProjects(draft.projects);
    const created = await request<CreatedApiKey>('POST', '/admin/keys', {
      body: { name: draft.name, permissions: draft.permissions, ...(projects ? { projects } : {}) },
    });
    const { key: _key, ...info } = created;
    items.value = [...items.value, info];
    return created;
  }

  /** Revokes a key (refused by the server at once) and refreshes the list. */
  async function revoke(id: number) {
    await request<void>('DELETE', `/admin/keys/${id}`);
    await load();
  }

  return { items, resource, loading, load, create, revoke };
});
