import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { ApiRequestError, request, uploadForm, type UploadProgress } from '../api/client.ts';
import { downloadFile } from '../api/download.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';

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

/** Columns each tab can sort by ($orderBy values, CONTRACT §5). */
export const SORT_COLUMNS: Record<EntryKind, string[]> = {
  emails: ['EmailAddress', 'Timestamp', 'UnsubscribedFrom', 'Id'],
  domains: ['Domain', 'Timestamp', 'Id'],
};

/** The opt-out screen's data: the chosen list and one page of its e-mails or domains. */
export const useOptOutStore = defineStore('optout', () => {
  const list = ref<OptOutList | null>(null);
  /** The project id asked for ('' = company-level list) when no list exists yet. */
  const missingProjectId = ref<string | null>(null);
  const kind = ref<EntryKind>('emails');
  const items = ref<OptOutEntry[]>([]);
  const total = ref(0);
  const filterValue = ref('');
  const sort = useTableSort('EmailAddress');
  /** The list the address names: '' = company-level list, else a project id. */
  const wantedProject = ref('');
  const page = ref(1);
  const pageSize = ref(50);
  const loading = ref(false);

  const base = computed(() => (list.value ? `/optout/lists/${list.value.id}/${kind.value}` : ''));
  const pageCount = computed(() => Math.max(1, Math.ceil(total.value / pageSize.value)));

  /** Opens the company-level list ('') or a project's list; a missing list is remembered so it can be created. */
  async function open(projectId: string) {
    const id = projectId.trim();
    wantedProject.value = id;
    missingProjectId.value = null;
    try {
      list.value = await request<OptOutList>('GET', '/optout/lists', { query: { projectId: id } });
    } catch (err) {
      list.value = null;
      items.value = [];
      total.value = 0;
      if (err instanceof ApiRequestError && err.status === 404) {
        missingProjectId.value = id;
        return;
      }
      throw err;
    }
    page.value = 1;
    await load();
  }

  async function create(projectId: string) {
    const id = projectId.trim();
    list.value = await request<OptOutList>('POST', '/optout/lists', { body: id ? { projectId: id } : {} });
    missingProjectId.value = null;
    page.value = 1;
    await load();
  }

  async function load() {
    if (!list.value) return;
    loading.value = true;
    try {
      const answer = await request<{ totalCount: number; items: OptOutEntry[] }>('GET', base.value, {
        query: {
          $filterValue: filterValue.value.trim(),
          $orderBy: sort.key,
          $orderAscending: !sort.desc,
          $page: page.value,
          $pageSize: pageSize.value,
        },
      });
      items.value = answer.items;
      total.value = answer.totalCount;
    } finally {
      loading.value = false;
    }
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
    page.value = 1;
    await load();
  }

  /** Back to the first page after the sort changed. */
  async function resort() {
    page.value = 1;
    await load();
  }

  async function setFilter(text: string) {
    filterValue.value = text;
    page.value = 1;
    await load();
  }

  async function goTo(target: number) {
    page.value = Math.min(Math.max(1, target), pageCount.value);
    await load();
  }

  async function add(value: string): Promise<number> {
    const field = kind.value === 'emails' ? 'emailAddress' : 'domain';
    const id = await request<number>('POST', base.value, { body: { [field]: value.trim() } });
    await load();
    return id;
  }

  async function remove(entry: OptOutEntry) {
    await request<void>('DELETE', `${base.value}/${entry.id}`);
    if (items.value.length === 1 && page.value > 1) page.value -= 1;
    await load();
  }

  /** Uploads and imports a file (all or nothing), reporting upload progress and then the server's processing. */
  async function importFile(file: File, on: UploadProgress): Promise<ImportResult> {
    const form = new FormData();
    form.append('file', file, file.name);
    const result = await uploadForm<ImportResult>(`${base.value}/import`, form, on, { invalidRows: 'list' });
    page.value = 1;
    await load();
    return result;
  }

  /** Saves the list's CSV export (a download, or the desktop app's save dialog); answers the file name, null when cancelled. */
  function exportFile(): Promise<string | null> {
    return downloadFile(`${base.value}/export`, {}, `optout-${list.value?.id}-${kind.value}.csv`, 'text/csv');
  }

  return {
    list, missingProjectId, wantedProject, kind, items, total, filterValue, sort, page, pageSize, pageCount, loading,
    open, create, load, setKind, resort, setFilter, goTo, add, remove, importFile, exportFile,
  };
});
