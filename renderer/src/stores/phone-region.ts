/**
 * The company's phone region (docs/cati-api.md#phone-region): `GET`/`PATCH /admin/settings` and the dry run
 * `GET /admin/settings/phone-region-preview?region=CC`. The blacklist screens show it beside every number input.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';

/** `GET /admin/settings`. */
export interface CompanySettings {
  PhoneRegion: string | null;
}

/** What a region change would do (nothing is written). */
export interface PhoneRegionPreview {
  Region: string | null;
  Current: string | null;
  Examples: { Input: string; Stored: string }[];
  Entries: number;
  Changes: number;
  Merges: number;
  Sample: { Id: number; Before: string; After: string; MergedInto: number | null }[];
}

/** The region's name in the user's language, e.g. `Netherlands (NL)`. */
let regionNames: Intl.DisplayNames | undefined; // made once: the region list labels some 245 codes
export function regionLabel(code: string): string {
  try {
    const name = (regionNames ??= new Intl.DisplayNames([navigator.language || 'en'], { type: 'region' })).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

export const usePhoneRegionStore = defineStore('phone-region', () => {
  /** The stored region; undefined until loaded (or when this key may not read it). */
  const region = ref<string | null | undefined>(undefined);

  async function load() {
    region.value = (await request<CompanySettings>('GET', '/admin/settings')).PhoneRegion;
  }

  async function preview(code: string | null): Promise<PhoneRegionPreview> {
    return request<PhoneRegionPreview>('GET', '/admin/settings/phone-region-preview', { query: { region: code ?? '' } });
  }

  /** Stores a region (null: none); answers how many stored numbers changed and merged. */
  async function save(code: string | null): Promise<{ Updated: number; Merged: number }> {
    const answer = await request<CompanySettings & { Renormalised: { Updated: number; Merged: number } }>('PATCH', '/admin/settings', { body: { PhoneRegion: code } });
    region.value = answer.PhoneRegion;
    return answer.Renormalised;
  }

  return { region, load, preview, save };
});
