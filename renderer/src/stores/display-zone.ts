/**
 * The zone the screens show times in (docs/screens.md#truth: the call centre's, as on the floor): the first call centre's
 * zone, the one the floor shows when no centre is chosen. Until it is known (or when it cannot be read) times are in
 * this computer's zone; either way the screen names the zone it shows.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { request } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';
import { zoneHeading } from './floor-format.ts';

export const useDisplayZoneStore = defineStore('display-zone', () => {
  /** The centre's IANA zone; null = this computer's. */
  const zone = ref<string | null>(null);
  /** Its name for column headers: `UTC`, `GMT+9`, or `Europe/Amsterdam` for a zone that changes its clocks (zoneHeading). */
  const heading = computed(() => zoneHeading(zone.value));
  let reading: Promise<void> | null = null;

  /** Reads the first centre's zone once (again after a failure). */
  function load(): Promise<void> {
    reading ??= request<ODataCollection<{ CallCenterId: number; TimeZone: string | null }>>('GET', '/cati/callcenters', {
      query: { $select: 'CallCenterId,TimeZone', $orderby: 'CallCenterId', $top: 1 },
    })
      .then((page) => void (zone.value = page.value[0]?.TimeZone ?? null))
      .catch(() => void (reading = null));
    return reading;
  }

  return { zone, heading, load };
});

/** The display zone, read on first use: `zone` (null until known) and `heading` for column headers. */
export function useDisplayZone() {
  const store = useDisplayZoneStore();
  void store.load();
  return store;
}
