import { defineStore } from 'pinia';
import { useDisplayZoneStore } from './display-zone.ts';
import { ref } from 'vue';
import { ApiRequestError, request } from '../api/client.ts';
import { saveFile, toCsv, utcDate } from '../api/download.ts';
import { formatTime, odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { usePager } from './paged-collection.ts';
import { importFile as uploadImport, type BlacklistType, type FileImportResult, type ImportChoices } from './blacklist-import.ts';

export type { BlacklistType };

export interface BlacklistItem extends WithEtag {
  Id: number;
  TelephoneNumber: string;
  Type: BlacklistType;
  Comment: string | null;
  Created: string;
}

export interface BlacklistDraft {
  TelephoneNumber: string;
  Type: BlacklistType;
  Comment: string;
}

export interface CheckResult {
  value: boolean;
  MatchedId: number | null;
  /** The digits the server compared (docs/cati-api.md#decisions). */
  Normalized?: string;
  /** The entry that blocks the number, read after a match (null when it could not be read, e.g. deleted since). */
  Matched?: Pick<BlacklistItem, 'TelephoneNumber' | 'Type' | 'Comment'> | null;
}

const BASE = '/cati/blacklist';

export { type FileImportResult } from './blacklist-import.ts';

/** The telephone blacklist screen's data: one page of items with search and paging. */
export const useBlacklistStore = defineStore('blacklist', () => {
  const search = ref('');
  /** A server without `Controller.Search` (older): the search falls back to `$filter` on the digits as typed. */
  let searchServed = true;
  const filter = () => {
    const s = search.value.trim();
    if (!s) return undefined;
    const digits = s.replace(/[\s\-.()+]/g, '');
    const parts = [`contains(Comment,${odataString(s)})`];
    if (/^\d+$/.test(digits)) parts.unshift(`contains(TelephoneNumber,${odataString(digits)})`);
    return parts.join(' or ');
  };
  const sort = useTableSort('Created', true, 'Id desc');

  /**
   * Reads rows matching the search: the server's `Controller.Search`, which reads the text as `Controller.Check` reads
   * a number (`020 555 0198` finds `31205550198` with region NL) or finds it in the comment (docs/cati-api.md#blacklist-search).
   */
  async function fetchMatching(query: Record<string, string | number | boolean | undefined>): Promise<ODataCollection<BlacklistItem>> {
    const text = search.value.trim();
    if (text && searchServed) {
      try {
        return await request<ODataCollection<BlacklistItem>>('GET', `${BASE}/Controller.Search(text=${encodeURIComponent(odataString(text))})`, { query });
      } catch (err) {
        if (!(err instanceof ApiRequestError) || err.status !== 404) throw err;
        searchServed = false;
      }
    }
    return request<ODataCollection<BlacklistItem>>('GET', BASE, { query: { ...query, $filter: filter() } });
  }

  const list = usePager<BlacklistItem>(async (offset, size) => {
    const page = await fetchMatching({ $orderby: sort.orderby(), $top: size, $skip: offset, $count: true });
    return { items: page.value, total: page['@odata.count'] ?? page.value.length };
  });
  const { load } = list;
  useAddressQuery('blacklist', { q: { get: () => search.value, set: (v) => (search.value = v) }, orderby: sort.field }, () => load(0));

  async function setSearch(text: string) {
    search.value = text;
    await load(0);
  }

  async function add(draft: BlacklistDraft): Promise<BlacklistItem> {
    const created = await request<BlacklistItem>('POST', BASE, { body: toBody(draft) });
    await load();
    return created;
  }

  async function update(item: BlacklistItem, draft: BlacklistDraft): Promise<BlacklistItem> {
    const updated = await request<BlacklistItem>('PUT', `${BASE}(${item.Id})`, {
      body: { Id: item.Id, ...toBody(draft) },
      headers: etagHeader(item),
    });
    await load();
    return updated;
  }

  async function remove(item: BlacklistItem) {
    await request<void>('DELETE', `${BASE}(${item.Id})`, { headers: etagHeader(item) });
    await load(); // an emptied last page steps back
  }

  /** Imports a file through the server's import job (progress from the job), then shows the first page. */
  async function importFile(file: File, choices: ImportChoices, onProgress: (done: number, total: number) => void): Promise<FileImportResult> {
    try {
      return await uploadImport(`${BASE}/imports`, file, choices, onProgress);
    } finally {
      await load(0).catch(() => false);
    }
  }

  /**
   * Every number matching the search, in the table's order and columns (the time in the shown zone, named in the
   * header), then the id, as a CSV file (all pages); answers the file name (null: cancelled).
   */
  async function exportCsv(): Promise<string | null> {
    const PAGE = 10000;
    const rows: unknown[][] = [];
    const tz = useDisplayZoneStore();
    for (let skip = 0; skip < 100 * PAGE; skip += PAGE) {
      const page = await fetchMatching({ $orderby: sort.orderby(), $top: PAGE, $skip: skip });
      rows.push(...page.value.map((i) => [i.TelephoneNumber, i.Type, i.Comment, formatTime(i.Created, tz.zone), i.Id]));
      if (page.value.length < PAGE) break;
    }
    const name = `blacklist-${utcDate()}.csv`;
    return saveFile(name, toCsv(['Number', 'Type', 'Comment', `Created (${tz.heading})`, 'Id'], rows));
  }

  /** Asks the server whether `number` is blocked and, when it is, which entry blocks it (its number, type and comment). */
  async function check(number: string): Promise<CheckResult> {
    const result = await request<CheckResult>('GET', `${BASE}/Controller.Check(telephoneNumber=${encodeURIComponent(odataString(number))})`);
    if (!result.value || result.MatchedId === null) return result;
    const Matched = await request<BlacklistItem>('GET', `${BASE}(${result.MatchedId})`, { query: { $select: 'TelephoneNumber,Type,Comment' } }).catch(() => null);
    return { ...result, Matched };
  }

  return { ...list, search, sort, setSearch, add, update, remove, importFile, exportCsv, check };
});

function toBody(draft: BlacklistDraft) {
  return { TelephoneNumber: draft.TelephoneNumber.trim(), Type: draft.Type, Comment: draft.Comment.trim() || null };
}

function etagHeader(item: WithEtag): Record<string, string> {
  return item['@odata.etag'] ? { 'If-Match': item['@odata.etag'] } : {};
}
