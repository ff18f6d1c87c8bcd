/** Break types (`/cati/breaktypes`, docs/cati-api.md#floor): names, limits (`MaxMinutes`) and whether paid; supervisors edit them. */
import { request } from '../api/client.ts';
import { t } from '../i18n/index.ts';
import type { ODataCollection, WithEtag } from '../api/odata.ts';

export interface BreakType extends WithEtag {
  BreakTypeId: number;
  Name: string;
  MaxMinutes: number | null;
  IsPaid: boolean;
}

/** The editable fields as the form holds them (`MaxMinutes` as text: '' = no limit). */
export interface BreakTypeDraft {
  Name: string;
  MaxMinutes: string;
  IsPaid: boolean;
}

/** Every break type, by id. */
export async function fetchBreakTypes(): Promise<BreakType[]> {
  const page = await request<ODataCollection<BreakType>>('GET', '/cati/breaktypes', { query: { $orderby: 'BreakTypeId', $top: 1000 } });
  return page.value;
}

/** `MaxMinutes` from the form: '' → null (no limit), a whole number ≥ 0, else an Error naming the problem. */
export function parseMaxMinutes(text: string): number | null {
  const limit = text.trim();
  if (limit === '') return null;
  if (!/^\d+$/.test(limit)) throw new Error(t('storeMessages.limitNotNumber', { limit }));
  return Number(limit);
}

/** Saves a break type (`PATCH`, with its ETag); answers the stored row. */
export async function saveBreakType(item: BreakType, draft: BreakTypeDraft): Promise<BreakType> {
  const body = { Name: draft.Name.trim(), MaxMinutes: parseMaxMinutes(draft.MaxMinutes), IsPaid: draft.IsPaid };
  if (!body.Name) throw new Error(t('storeMessages.breakTypeNeedsName'));
  const headers: Record<string, string> = item['@odata.etag'] ? { 'If-Match': item['@odata.etag'] } : {};
  return request<BreakType>('PATCH', `/cati/breaktypes(${item.BreakTypeId})`, { body, headers });
}
