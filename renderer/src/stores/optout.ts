import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { parseRecords } from '../../../common/files/csv-records.ts';
import { ApiRequestError, ROLE_REFUSED, request, send, uploadForm, type UploadProgress } from '../api/client.ts';
import { compareValues } from '../composables/table-sort.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { usePager } from './paged-collection.ts';

export interface OptOutList {
  id: number;
  companyId: number;
  projectId?: string | null;
}

export type EntryKind = 'emails' | 'domains';

export interface OptOutEntry {
  id: number;
  emailAddress?: string;
  domain?: string;
  timestamp: string;
  unsubscribedFrom?: string | null;
}

export interface ImportResult {
  newRows: number;
  duplicatedRows: number;
  invalidRows: number;
  /** The first 1000 refused values (asked for with `?invalidRows=list`). */
  invalidItems: { row: number; value: string; reason: string }[];
}

/** Columns each tab can sort by ($orderBy values, docs/optout-api.md#lists). */
export const SORT_COLUMNS: Record<EntryKind, string[]> = {
  emails: ['EmailAddress', 'Timestamp', 'UnsubscribedFrom', 'Id'],
  domains: ['Domain', 'Timestamp', 'Id'],
};

/** A cell of the list's CSV export as it was stored: the export's formula guard (a `'` before `=`, `+`, `-`, `@`, `'`…) taken off. */
const unguard = (cell: string) => (/^'[=+\-@\t\r']/.test(cell) ? cell.slice(1) : cell);

/** The opt-out screen's data: the chosen list and one page of its e-mails or domains. */
export const useOptOutStore = defineStore('optout', () => {
  const list = ref<OptOutList | null>(null);
  /** The project id asked for ('' = company-level list) when no list exists yet. */
  const missingProjectId = ref<string | null>(null);
  const kind = ref<EntryKind>('emails');
  const filterValue = ref('');
  const sort = useTableSort('EmailAddress');
  /** The list the address names: '' = company-level list, else a project id. */
  const wantedProject = ref('');
  const base = computed(() => (list.value ? `/optout/lists/${list.value.id}/${kind.value}` : ''));
  /** The shared pager over the opt-out API's own paging (`$page` from 1, `$pageSize`, `totalCount`). */
  const pager = usePager<OptOutEntry>(async (offset, size) => {
    const answer = await request<{ totalCount: number; items: OptOutEntry[] }>('GET', base.value, {
      query: { $filterValue: filterValue.value.trim(), $orderBy: sort.key, $orderAscending: !sort.desc, $page: Math.floor(offset / size) + 1, $pageSize: size },
    });
    return { items: answer.items, total: answer.totalCount };
  });

  /** Opens the company-level list ('') or a project's list; a missing list is remembered so it can be created. */
  async function open(projectId: string) {
    const id = projectId.trim();
    wantedProject.value = id;
    missingProjectId.value = null;
    try {
      list.value = await request<OptOutList>('GET', '/optout/lists', { query: { projectId: id } });
    } catch (err) {
      list.value = null;
      pager.clear();
      // The company-level list is not this role's to read (it was not asked for): the screen offers project lists.
      if (err instanceof ApiRequestError && err.code === ROLE_REFUSED) return;
      if (err instanceof ApiRequestError && err.status === 404) {
        missingProjectId.value = id;
        return;
      }
      throw err;
    }
    await load(0);
  }

  async function create(projectId: string) {
    const id = projectId.trim();
    list.value = await request<OptOutList>('POST', '/optout/lists', { body: id ? { projectId: id } : {} });
    missingProjectId.value = null;
    await load(0);
  }

  /** Loads the page at `offset` (default the current one) of the open list. */
  async function load(offset?: number) {
    if (!list.value) return;
    await pager.load(offset);
  }

  function selectKind(next: EntryKind) {
    kind.value = next;
    sort.set(SORT_COLUMNS[next][0]!, false);
  }

  useAddressQuery(
    'optout',
    {
      project: { get: () => wantedProject.value, set: (v) => (wantedProject.value = /^p\d+$/.test(v) ? v : '') },
      kind: { get: () => (kind.value === 'emails' ? '' : kind.value), set: (v) => selectKind(v === 'domains' ? 'domains' : 'emails') },
      q: { get: () => filterValue.value, set: (v) => (filterValue.value = v) },
      orderby: sort.field,
    },
    () => open(wantedProject.value),
  );

  async function setKind(next: EntryKind) {
    selectKind(next);
    filterValue.value = '';
    pager.clear();
    await load(0);
  }

  /** Back to the first page after the sort changed. */
  const resort = () => load(0);

  async function setFilter(text: string) {
    filterValue.value = text;
    await load(0);
  }

  /** Loads the page at `offset` (never below 0); for the pager. */
  const goTo = (offset: number) => load(Math.max(0, offset));

  async function add(value: string): Promise<number> {
    const field = kind.value === 'emails' ? 'emailAddress' : 'domain';
    const id = await request<number>('POST', base.value, { body: { [field]: value.trim() } });
    await load();
    return id;
  }

  async function remove(entry: OptOutEntry) {
    await request<void>('DELETE', `${base.value}/${entry.id}`);
    await load(); // the last row of a last page gone: the pager steps back a page
  }

  /** Uploads and imports a file (all or nothing), reporting upload progress and then the server's processing. */
  async function importFile(file: File, on: UploadProgress): Promise<ImportResult> {
    const form = new FormData();
    form.append('file', file, file.name);
    const result = await uploadForm<ImportResult>(`${base.value}/import`, form, on, { invalidRows: 'list' });
    await load(0);
    return result;
  }

  /**
   * Every entry the screen's filter matches, in the screen's order: the list's own export (one streamed read of the
   * whole list, docs/optout-api.md#export) read here, filtered and sorted as the server pages it. The screen's export
   * writes them as the table shows them (docs/screens.md#exports): its columns, times in the zone shown.
   */
  async function allEntries(): Promise<OptOutEntry[]> {
    const res = await send('GET', `${base.value}/export`, { headers: { Accept: 'text/csv' } });
    const emails = kind.value === 'emails';
    const needle = filterValue.value.trim().toLowerCase();
    const entries: OptOutEntry[] = [];
    parseRecords((await res.text()).replace(/^\uFEFF/, ''), ',').forEach((cells, i) => {
      if (i === 0 || (cells.length === 1 && cells[0] === '')) return;
      const value = unguard(cells[0] ?? '');
      if (needle && !value.toLowerCase().includes(needle)) return;
      const entry: OptOutEntry = { id: i, timestamp: cells[1] ?? '', ...(emails ? { emailAddress: value, unsubscribedFrom: unguard(cells[2] ?? '') || null } : { domain: value }) };
      entries.push(entry);
    });
    const key = ({ EmailAddress: 'emailAddress', Domain: 'domain', Timestamp: 'timestamp', UnsubscribedFrom: 'unsubscribedFrom' } as const)[sort.key as 'Domain'];
    if (key) entries.sort((a, b) => (sort.desc ? -1 : 1) * compareValues(a[key], b[key]));
    else if (sort.desc) entries.reverse(); // Id: the export is oldest first, as ids were given
    return entries;
  }

  return {
    list, missingProjectId, wantedProject, kind, filterValue, sort,
    items: pager.items, total: pager.total, skip: pager.skip, pageSize: pager.pageSize, loading: pager.loading, resource: pager.resource,
    open, create, load, setKind, resort, setFilter, goTo, add, remove, importFile, allEntries,
  };
});
