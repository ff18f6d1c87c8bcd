import { defineStore } from 'pinia';
import { computed, reactive, ref } from 'vue';
import type { AuditRow } from '../../../server/audit/audit-query.ts';
import { request } from '../api/client.ts';
import { downloadFile } from '../api/download.ts';
import { textField, useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { localInputToIso } from './history-range.ts';
import { useResourceState } from './resource-state.ts';

export type { AuditRow };

/** The `Entity` names of CONTRACT §10 (plus this server's `optout-lists` and `settings`), for the "What" filter. */
export const AUDIT_ENTITIES = [
  'blacklist', 'groups', 'interviewers', 'assignments', 'breaktypes', 'extendedstatuses', 'callcenters', 'optout-lists',
  'optout-emails', 'optout-domains', 'optout-imports', 'optout-settings', 'settings', 'keys', 'users', 'sessions',
] as const;

/** The Activity section's filters: who (key id or name), what (entity), when (datetime-local, local time). */
export interface AuditFilters {
  actor: string;
  entity: string;
  from: string;
  to: string;
}

/** One readable line of a row's Changes: `field: before → after`, or `field: value` for a create, delete or count. */
export function describeChanges(changes: Record<string, unknown>): string[] {
  const text = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
  return Object.entries(changes).map(([field, value]) =>
    Array.isArray(value) && value.length === 2 ? `${field}: ${text(value[0])} → ${text(value[1])}` : `${field}: ${text(value)}`,
  );
}

const PAGE_SIZE = 100;

/**
 * The audit log of the Settings screen (`GET /admin/audit`): filters kept in the address, pages loaded with the
 * answer's `@odata.nextLink` ("Load more"), only the newest load's answer shown, and the CSV export by the server.
 */
export const useAuditStore = defineStore('audit', () => {
  const filters = reactive<AuditFilters>({ actor: '', entity: '', from: '', to: '' });
  /** Sign-ins, sign-outs and failed sign-ins (entity `sessions`) are hidden unless asked for (CONTRACT §15). */
  const showSessions = ref(false);
  const sort = useTableSort('Time', true);
  const items = ref<AuditRow[]>([]);
  const nextToken = ref<string | null>(null);
  /** The rows' loading state (loading / empty / failed / offline, stale after a failed refresh); the newest load wins. */
  const resource = useResourceState();
  const loading = computed(() => resource.pending);

  /** The filters as API parameters; a malformed date throws a readable error before anything is sent. */
  function query(): Record<string, string | undefined> {
    return {
      actor: filters.actor.trim() || undefined,
      entity: filters.entity || undefined,
      excludeEntity: showSessions.value || filters.entity === 'sessions' ? undefined : 'sessions',
      from: filters.from ? localInputToIso(filters.from, 'From') : undefined,
      to: filters.to ? localInputToIso(filters.to, 'To') : undefined,
    };
  }

  let latest = 0;
  async function fetchPage(token: string | null, append: boolean): Promise<void> {
    const params = query();
    const seq = ++latest;
    await resource.track(async () => {
      const page = await request<{ value: AuditRow[]; '@odata.nextLink'?: string }>('GET', '/admin/audit', {
        query: { ...params, $top: PAGE_SIZE, $skiptoken: token ?? undefined },
      });
      if (seq !== latest) return; // a newer load (other filters) answers instead
      items.value = append ? [...items.value, ...page.value] : page.value;
      const link = page['@odata.nextLink'];
      nextToken.value = link ? new URL(link).searchParams.get('$skiptoken') : null;
    }, () => items.value.length === 0);
  }

  /** The first page for the current filters. */
  const load = () => fetchPage(null, false);
  /** The next page, added below the rows shown. */
  const loadMore = () => (nextToken.value ? fetchPage(nextToken.value, true) : Promise.resolve());

  /** Every row matching the filters as CSV, exported by the server; answers the file name (null when cancelled). */
  const exportCsv = () => downloadFile('/admin/audit', { ...query(), $format: 'csv' }, 'audit-log.csv', 'text/csv');

  useAddressQuery(
    'settings',
    {
      actor: textField(() => filters.actor, (v) => (filters.actor = v)),
      entity: textField(() => filters.entity, (v) => (filters.entity = v)),
      from: textField(() => filters.from, (v) => (filters.from = v)),
      to: textField(() => filters.to, (v) => (filters.to = v)),
      sort: sort.field,
    },
    load,
  );

  return { filters, showSessions, sort, items, nextToken, resource, loading, load, loadMore, exportCsv };
});
