/** Names the reports show instead of raw codes: outcomes (`/cati/extendedstatuses`, docs/cati-api.md#floor) and call centres. */
import { ApiRequestError, request } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';

export type OutcomeCategory = 'Complete' | 'Refusal' | 'NoContact' | 'Appointment' | 'Ineligible' | 'Other';
export const OUTCOME_CATEGORIES: OutcomeCategory[] = ['Complete', 'Refusal', 'NoContact', 'Appointment', 'Ineligible', 'Other'];

/** One `ExtendedStatus` code with its name and category. */
export interface Outcome {
  Code: number;
  Name: string;
  Category: OutcomeCategory;
}

/** Every outcome by code (a server without `/cati/extendedstatuses` answers none: codes are shown as numbers). */
export async function fetchOutcomes(): Promise<Outcome[]> {
  try {
    const page = await request<ODataCollection<Outcome>>('GET', '/cati/extendedstatuses', { query: { $orderby: 'Code', $top: 1000 } });
    return page.value;
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return [];
    throw err;
  }
}

/** The category of a code: its row's, else `Other` (docs/cati-api.md#floor: a code without a row counts as Other). */
export function categoryOf(outcomes: readonly Outcome[], code: number | null | undefined): OutcomeCategory {
  return outcomes.find((o) => o.Code === code)?.Category ?? 'Other';
}

/** `$filter` for calls whose outcome is in `category` (Other: every code that has no other category, and none). */
export function categoryFilter(outcomes: readonly Outcome[], category: OutcomeCategory): string {
  if (category !== 'Other') {
    const codes = outcomes.filter((o) => o.Category === category).map((o) => o.Code);
    return codes.length ? `ExtendedStatus in (${codes.join(',')})` : 'ExtendedStatus eq -2147483648';
  }
  const others = outcomes.filter((o) => o.Category !== 'Other').map((o) => o.Code);
  return others.length ? `(ExtendedStatus eq null or not (ExtendedStatus in (${others.join(',')})))` : 'true';
}

/** Readable category names. */
export const CATEGORY_LABELS = {
  Complete: 'outcome.Complete',
  Refusal: 'outcome.Refusal',
  NoContact: 'outcome.NoContact',
  Appointment: 'outcome.Appointment',
  Ineligible: 'outcome.Ineligible',
  Other: 'outcome.Other',
} as const satisfies Record<OutcomeCategory, string>;

/** Adds an outcome code (`POST /cati/extendedstatuses`; a code already there → 409). */
export const createOutcome = (o: Outcome): Promise<Outcome> => request<Outcome>('POST', '/cati/extendedstatuses', { body: o });

/** Changes an outcome's name and category. */
export const updateOutcome = (code: number, o: Pick<Outcome, 'Name' | 'Category'>): Promise<Outcome> =>
  request<Outcome>('PATCH', `/cati/extendedstatuses(${code})`, { body: o });

/** Removes an outcome (its code then counts as `Other`). */
export const deleteOutcome = (code: number): Promise<void> => request('DELETE', `/cati/extendedstatuses(${code})`);
