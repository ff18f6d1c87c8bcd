import { defineStore } from 'pinia';
import { computed, reactive, ref } from 'vue';
import { AUDIT_ID_FIELDS, type AuditRow, type ChangeNames, type NamedKind } from '../../../common/audit-row.ts';
import { request } from '../api/client.ts';
import { textField, useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { t } from '../i18n/index.ts';
import { useDisplayZoneStore } from './display-zone.ts';
import { localInputToIso } from './history-range.ts';
import { useResourceState } from './resource-state.ts';

export type { AuditRow };

/** The `Entity` names of docs/audit.md#audit (plus this server's `optout-lists` and `settings`), for the "What" filter. */
export const AUDIT_ENTITIES = [
  'blacklist', 'groups', 'interviewers', 'assignments', 'breaktypes', 'extendedstatuses', 'callcenters', 'optout-lists',
  'optout-emails', 'optout-domains', 'optout-imports', 'optout-settings', 'settings', 'keys', 'users', 'sessions',
] as const;

/** The Activity section's filters: who (key id or name), what (entity), when (datetime-local, in the display zone). */
export interface AuditFilters {
  actor: string;
  entity: string;
  from: string;
  to: string;
}

/** Fields whose value is a list of ids (a delete's `Members`), not a `[before, after]` pair unless both sides are lists. */
const LIST_FIELDS = new Set(['Members', 'Groups']);

/** A value as text; an id of a named kind as `Amsterdam (2)` (its bare id when it has no name), a list of them joined. */
function valueText(value: unknown, kind: NamedKind | undefined, names: ChangeNames): string {
  if (value === null || value === undefined) return '—';
  if (kind && Array.isArray(value)) return value.length ? value.map((v) => valueText(v, kind, names)).join(', ') : '—';
  if (kind && (typeof value === 'number' || typeof value === 'string')) {
    const name = names[kind]?.[String(value)];
    return name ? `${name} (${value})` : String(value);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Whether a field's value is a `[before, after]` pair. */
const isPair = (field: string, value: unknown): value is [unknown, unknown] =>
  Array.isArray(value) && value.length === 2 && (!LIST_FIELDS.has(field) || value.every((v) => v === null || Array.isArray(v)));

/**
 * One readable line of a row's Changes: `field: before → after`, or `field: value` for a create, delete or count; the
 * ids of groups, interviewers, surveys and call centres with their names (docs/audit.md#names):
 * `ParentGroups: Amsterdam (2) → Amsterdam (2), Nights (10)`.
 */
export function describeChanges(changes: Record<string, unknown>, names: ChangeNames = {}): string[] {
  return Object.entries(changes).map(([field, value]) => {
    const kind = AUDIT_ID_FIELDS[field];
    return isPair(field, value)
      ? `${field}: ${valueText(value[0], kind, names)} → ${valueText(value[1], kind, names)}`
      : `${field}: ${valueText(value, kind, names)}`;
  });
}

/** What a row is about, named: `Anna Visser (15)`, `Anna Visser (interviewers(15))`; the bare id when it has no name. */
export const entityText = (r: Pick<AuditRow, 'EntityId' | 'EntityName'>): string =>
  r.EntityName ? (r.EntityId === null ? r.EntityName : `${r.EntityName} (${r.EntityId})`) : (r.EntityId ?? '');

const PAGE_SIZE = 100;
/** An export reads the rows in pages of this many (the API's most), and at most EXPORT_MAX (the browser builds the file). */
const EXPORT_PAGE = 1000;
const EXPORT_MAX = 200_000;

/**
 * The audit log of the Settings screen (`GET /admin/audit`): filters kept in the address, pages loaded with the
 * answer's `@odata.nextLink` ("Load more"), only the newest load's answer shown; times and the filters' wall times in
 * the display zone (the call centre's); the export is the table's, over every matching row.
 */
export const useAuditStore = defineStore('audit', () => {
  const filters = reactive<AuditFilters>({ actor: '', entity: '', from: '', to: '' });
  /** Sign-ins, sign-outs and failed sign-ins (entity `sessions`) are hidden unless asked for (docs/audit.md#audit). */
  const showSessions = ref(false);
  const sort = useTableSort('Time', true);
  const items = ref<AuditRow[]>([]);
  const nextToken = ref<string | null>(null);
  /** The rows' loading state (loading / empty / failed / offline, stale after a failed refresh); the newest load wins. */
  const resource = useResourceState();
  const loading = computed(() => resource.pending);
  const displayZone = useDisplayZoneStore();

  /** The filters as API parameters; a malformed date throws a readable error before anything is sent. */
  function query(): Record<string, string | undefined> {
    return {
      actor: filters.actor.trim() || undefined,
      entity: filters.entity || undefined,
      excludeEntity: showSessions.value || filters.entity === 'sessions' ? undefined : 'sessions',
      from: filters.from ? localInputToIso(filters.from, t('common.from'), displayZone.zone) : undefined,
      to: filters.to ? localInputToIso(filters.to, t('history.to'), displayZone.zone) : undefined,
    };
  }

  let latest = 0;
  async function fetchPage(token: string | null, append: boolean): Promise<void> {
    const seq = ++latest;
    await resource.track(async () => {
      await displayZone.load(); // From and To are that zone's wall times
      const params = query();
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

  /** Every row matching the filters (all pages, newest first), for the export of what the table shows; refuses more than EXPORT_MAX. */
  async function allRows(): Promise<AuditRow[]> {
    await displayZone.load();
    const params = query();
    const rows: AuditRow[] = [];
    for (let token: string | null = null; ; ) {
      const page: { value: AuditRow[]; '@odata.nextLink'?: string } = await request('GET', '/admin/audit', { query: { ...params, $top: EXPORT_PAGE, $skiptoken: token ?? undefined } });
      rows.push(...page.value);
      const link = page['@odata.nextLink'];
      if (!link) return rows;
      if (rows.length >= EXPORT_MAX) throw new Error(`More than ${EXPORT_MAX.toLocaleString()} changes: narrow the filters to export them.`);
      token = new URL(link).searchParams.get('$skiptoken');
    }
  }

  /** The filters' period for file names: `2026-11-01_2026-11-27` (days in the display zone, To exclusive; `all`/`now` when open). */
  const period = () => `${filters.from.slice(0, 10) || 'all'}_${filters.to.slice(0, 10) || 'now'}`;

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

  return { filters, showSessions, sort, items, nextToken, resource, loading, load, loadMore, allRows, period };
});
