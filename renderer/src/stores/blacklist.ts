import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type WithEtag } from '../api/odata.ts';
import { usePagedCollection } from './paged-collection.ts';

export type BlacklistType = 'Equal' | 'StartWith';

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

export interface ImportResult {
  Added: number;
  Duplicates: number;
  Invalid: number;
  InvalidItems: unknown[];
}

export interface CheckResult {
  value: boolean;
  MatchedId: number | null;
}

const BASE = '/cati/blacklist';
export const IMPORT_LIMIT = 10000;

/** Splits pasted text or a .txt/.csv file into blacklist import items (one per line, first cell; a header line is skipped). */
export function parseNumberList(text: string, type: BlacklistType): { TelephoneNumber: string; Type: BlacklistType }[] {
  const items: { TelephoneNumber: string; Type: BlacklistType }[] = [];
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const cells = line.split(/[,;\t]/).map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    const number = cells[0] ?? '';
    if (!number) continue;
    if (items.length === 0 && /^[a-z _]+$/i.test(number)) continue; // header row such as "TelephoneNumber"
    const rowType = cells.find((c) => c === 'Equal' || c === 'StartWith') as BlacklistType | undefined;
    items.push({ TelephoneNumber: number, Type: rowType ?? type });
  }
  return items;
}

/** The telephone blacklist screen's data: one page of items with search and paging. */
export const useBlacklistStore = defineStore('blacklist', () => {
  const search = ref('');
  const filter = () => {
    const s = search.value.trim();
    if (!s) return undefined;
    const digits = s.replace(/[\s\-.()+]/g, '');
    const parts = [`contains(Comment,${odataString(s)})`];
    if (/^\d+$/.test(digits)) parts.unshift(`contains(TelephoneNumber,${odataString(digits)})`);
    return parts.join(' or ');
  };
  const list = usePagedCollection<BlacklistItem>(BASE, { filter, orderby: 'Id desc' });
  const { load } = list;

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

  async function importItems(entries: { TelephoneNumber: string; Type: BlacklistType }[]): Promise<ImportResult> {
    const result = await request<ImportResult>('POST', `${BASE}/Controller.Import`, { body: { BlackListItems: entries } });
    await load();
    return result;
  }

  async function check(number: string): Promise<CheckResult> {
    return request<CheckResult>('GET', `${BASE}/Controller.Check(telephoneNumber=${encodeURIComponent(odataString(number))})`);
  }

  return { ...list, search, setSearch, add, update, remove, importItems, check };
});

function toBody(draft: BlacklistDraft) {
  return { TelephoneNumber: draft.TelephoneNumber.trim(), Type: draft.Type, Comment: draft.Comment.trim() || null };
}

function etagHeader(item: WithEtag): Record<string, string> {
  return item['@odata.etag'] ? { 'If-Match': item['@odata.etag'] } : {};
}
