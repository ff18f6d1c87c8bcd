/**
 * The live floor (docs/events.md#events): every working interviewer from `/cati/floor`, refetched (coalesced) on each
 * event of the live stream and polled while the stream is down; filters and sort in the address; one shared
 * 1 s clock for the ticking times; break levels against the types' limits; lock/unlock from a row.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { describeError, request } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';
import { useAddressQuery, type AddressField } from '../composables/address-query.ts';
import { sortRows, useTableSort } from '../composables/table-sort.ts';
import { fetchBreakTypes, type BreakType } from './break-types.ts';
import { breakLevel, countFloor, FLOOR_STATES, secondsInState, type FloorRow, type FloorState } from './floor-format.ts';
import { fetchGroupOptions, type Group } from './groups.ts';
import { isUnreachable } from './resource-state.ts';
import { OPEN_EVENT, useLiveEventsStore } from './live-events.ts';
import { fetchSurveyOptions } from './surveys.ts';

export interface CentreZone {
  CallCenterId: number;
  Name: string;
  TimeZone: string | null;
}

/** At most this many floor loads a second, however many events arrive. */
const MIN_LOAD_GAP_MS = 250;
/** While the stream is down the floor is polled this often. */
export const POLL_MS = 12_000;
/** A survey on the floor whose name is unknown reads the names again, at most this often. */
const SURVEY_NAMES_GAP_MS = 30_000;
/** Event kinds that change the floor (blacklist and assignment events do not). */
const FLOOR_EVENTS = new Set(['session', 'call', 'break', 'interviewer', 'reset', OPEN_EVENT]);

/**
 * The new rows, with each row that did not change replaced by its old object (and the old array when nothing
 * changed), so a reload after an event re-renders only the rows it changed.
 */
export function reuseUnchanged(old: FloorRow[], fresh: FloorRow[]): FloorRow[] {
  const before = new Map(old.map((r) => [r.SessionId, r]));
  let changed = old.length !== fresh.length;
  const rows = fresh.map((r, i) => {
    const o = before.get(r.SessionId);
    const same = o !== undefined && (Object.keys(r) as (keyof FloorRow)[]).every((k) => o[k] === r[k]);
    if (!same || old[i] !== o) changed = true;
    return same ? o : r;
  });
  return changed ? rows : old;
}

export const useFloorStore = defineStore('floor', () => {
  const rows = ref<FloorRow[]>([]);
  const loading = ref(false);
  const lastUpdated = ref<number | null>(null);
  /** The clock of the ticking times: stands still while the stream is down. */
  const now = ref(Date.now());
  /** The wall clock: always ticks. */
  const clock = ref(Date.now());
  const centres = ref<CentreZone[]>([]);
  const groups = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);
  const breakTypes = ref<BreakType[]>([]);
  /** Survey names by id (docs/screens.md#truth: names, not ids). */
  const surveyNames = ref(new Map<string, string>());
  const filters = ref({ centre: '', group: '', survey: '', state: '' });
  /** The members of the group filtered on (null = no group filter). */
  const groupMembers = ref<Set<number> | null>(null);
  const sort = useTableSort('State');

  const limits = computed(() => new Map(breakTypes.value.map((b) => [b.BreakTypeId, b.MaxMinutes])));
  const levelOf = (r: FloorRow) => breakLevel(r, r.BreakTypeId === null ? null : limits.value.get(r.BreakTypeId), now.value);
  const zoneOf = computed(() => {
    const byId = new Map(centres.value.map((c) => [c.CallCenterId, c.TimeZone]));
    return (id: number) => byId.get(id) ?? null;
  });
  /** The zone the screen's clock times are in: the chosen centre's, else the first centre's. */
  const displayZone = computed(() => (filters.value.centre ? zoneOf.value(Number(filters.value.centre)) : (centres.value[0]?.TimeZone ?? null)));

  /** The centres are in more than one zone: each clock time then names its zone. */
  const multiZone = computed(() => new Set(centres.value.map((c) => c.TimeZone)).size > 1);
  /** A survey's name (its id while the name is unknown). */
  const surveyName = (id: string | null): string => (id === null ? '' : (surveyNames.value.get(id) ?? id));
  /** The surveys on the floor, by name. */
  const surveys = computed(() =>
    [...new Set(rows.value.map((r) => r.SurveyId).filter((s): s is string => !!s))].sort((a, b) => surveyName(a).localeCompare(surveyName(b))),
  );
  const sorted = computed(() => {
    const f = filters.value;
    const shown = rows.value.filter(
      (r) =>
        (!f.centre || r.CallCenterId === Number(f.centre)) &&
        (!f.survey || r.SurveyId === f.survey) &&
        (!f.state || r.State === f.state) &&
        (!groupMembers.value || groupMembers.value.has(r.InterviewerId)),
    );
    // Time in state sorts by its start (earlier = longer), so the order holds still while the clock ticks.
    return sortRows(shown, sort, (r, key) => (key === 'TimeInState' ? -Date.parse(r.StateSince) : key === 'Interviewer' ? (r.DisplayName ?? r.Name) : key === 'SurveyId' ? surveyName(r.SurveyId) : r[key as keyof FloorRow]));
  });
  const counts = computed(() => countFloor(visible.value, levelOf));

  /** Rows whose action question is open: while there are any, the rows keep the order they had (new rows go last). */
  const held = new Set<number>();
  const heldOrder = ref<number[] | null>(null);
  /** Holds (or releases) the rows' order while a row's Lock/Unlock question is open, so the row under the pointer stays. */
  function holdOrder(sessionId: number, open: boolean) {
    if (open) {
      if (!held.size) heldOrder.value = sorted.value.map((r) => r.SessionId);
      held.add(sessionId);
    } else {
      held.delete(sessionId);
      if (!held.size) heldOrder.value = null;
    }
  }
  const visible = computed(() => {
    const order = heldOrder.value;
    if (!order) return sorted.value;
    const at = new Map(order.map((id, i) => [id, i]));
    return [...sorted.value].sort((a, b) => (at.get(a.SessionId) ?? order.length) - (at.get(b.SessionId) ?? order.length));
  });

  let inFlight: Promise<void> | null = null;
  let again = false;
  let lastLoad = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function fetchRows() {
    loading.value = true;
    try {
      const page = await request<ODataCollection<FloorRow>>('GET', '/cati/floor', { query: { $top: 10000 } });
      rows.value = reuseUnchanged(rows.value, page.value);
      if (page.value.some((r) => r.SurveyId !== null && !surveyNames.value.has(r.SurveyId))) void loadSurveyNames().catch(() => undefined);
      lastUpdated.value = now.value = Date.now();
    } finally {
      loading.value = false;
      lastLoad = Date.now();
    }
  }

  /** Why the last load failed (null after a success): shown in the one "not live" banner, never one notice per poll. */
  const loadProblem = ref<string | null>(null);
  /** The last load failed because the server could not be reached at all. */
  const loadUnreachable = ref(false);
  /** The load of a poll or an event: a failure is kept as the floor's problem, not pushed as a notice. */
  const loadQuietly = () =>
    load().then(
      () => {
        loadProblem.value = null;
        loadUnreachable.value = false;
      },
      (err: unknown) => {
        loadProblem.value = describeError(err);
        loadUnreachable.value = isUnreachable(err);
      },
    );

  /** Loads the floor now (a load already running is followed by one more). */
  async function load(): Promise<void> {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = fetchRows().finally(() => {
      inFlight = null;
      if (again) {
        again = false;
        schedule();
      }
    });
    return inFlight;
  }

  /** Asks for a load soon: many events in a burst give one load, at most one every MIN_LOAD_GAP_MS. */
  function schedule() {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void loadQuietly();
    }, Math.max(0, lastLoad + MIN_LOAD_GAP_MS - Date.now()));
  }

  let namesRead = 0;
  /** Reads the survey names again (a new survey on the floor: at most once every SURVEY_NAMES_GAP_MS). */
  async function loadSurveyNames(force = false) {
    if (!force && Date.now() - namesRead < SURVEY_NAMES_GAP_MS) return;
    namesRead = Date.now();
    surveyNames.value = new Map((await fetchSurveyOptions()).map((s) => [s.SurveyId, s.SurveyName]));
  }

  /** Centres (with zones), groups, break limits and survey names: read when the screen is shown (they change in other screens). */
  async function loadLookups() {
    const [c, g, b] = await Promise.all([
      request<ODataCollection<CentreZone>>('GET', '/cati/callcenters', { query: { $orderby: 'CallCenterId', $top: 1000 } }),
      fetchGroupOptions(),
      fetchBreakTypes(),
      loadSurveyNames(true),
    ]);
    centres.value = c.value;
    groups.value = g;
    breakTypes.value = b;
    await loadGroupMembers();
  }

  /** The direct members of the chosen group, in the chosen centre or in every centre. */
  async function loadGroupMembers() {
    const id = filters.value.group;
    if (!/^\d+$/.test(id)) {
      groupMembers.value = null;
      return;
    }
    const ids = filters.value.centre ? [Number(filters.value.centre)] : centres.value.map((c) => c.CallCenterId);
    const pages = await Promise.all(
      ids.map((cc) =>
        request<ODataCollection<{ InterviewerId: number }>>('GET', `/cati/groups(${id})/Controller.GetInterviewers(callCenterId=${cc})`, {
          query: { $select: 'InterviewerId', $top: 10000 },
        }),
      ),
    );
    groupMembers.value = new Set(pages.flatMap((p) => p.value.map((m) => m.InterviewerId)));
  }

  async function setFilter(key: keyof typeof filters.value, value: string) {
    filters.value = { ...filters.value, [key]: value };
    if (key === 'group' || key === 'centre') await loadGroupMembers();
  }

  let started = false;
  /** Starts the clock, the live stream and the polling fallback (once; the screens stay alive). */
  function start() {
    if (started) return;
    started = true;
    const live = useLiveEventsStore();
    live.subscribe((m) => {
      if (FLOOR_EVENTS.has(m.event)) schedule();
    });
    live.start();
    // While the stream is down the times stop: they would tick on figures nobody is sure of (docs/screens.md#truth).
    setInterval(() => {
      clock.value = Date.now();
      if (live.status === 'live' && loadProblem.value === null) now.value = clock.value;
    }, 1000);
    // Polled while the stream is down, and while loads fail with the stream up (events alone may not come).
    setInterval(() => {
      if (live.status !== 'live' || loadProblem.value !== null) void loadQuietly();
    }, POLL_MS);
  }

  /** Locks or unlocks the interviewer of a row (`Controller.Lock()` / `Unlock()`), then reloads. */
  async function setLocked(row: FloorRow, locked: boolean) {
    await request('GET', `/cati/interviewers(${row.InterviewerId})/Controller.${locked ? 'Lock' : 'Unlock'}()`, { change: true });
    await load();
  }

  const field = (key: keyof typeof filters.value, valid: (v: string) => boolean): AddressField => ({
    get: () => filters.value[key],
    set: (v) => (filters.value = { ...filters.value, [key]: valid(v) ? v : '' }),
  });
  const isId = (v: string) => /^\d+$/.test(v);
  const filterFields = {
    centre: field('centre', isId),
    group: field('group', isId),
    survey: field('survey', () => true),
    state: field('state', (v) => FLOOR_STATES.includes(v as FloorState)),
  };
  useAddressQuery('floor', { ...filterFields, orderby: sort.field }, loadGroupMembers);
  // The wallboard shows the same floor; its address takes the same filters (`#/wallboard?centre=1`).
  useAddressQuery('wallboard', filterFields, loadGroupMembers);

  const live = useLiveEventsStore();
  /**
   * The figures are those of `lastUpdated`, marked stale, times stopped: the stream is down (the floor is polled every
   * POLL_MS), or the stream is up but the floor's loads fail (events arrive, the rows cannot follow them).
   */
  const stale = computed(() => lastUpdated.value !== null && ((live.status !== 'live' && live.status !== 'connecting') || loadProblem.value !== null));
  /** Reconnects the stream and reloads now (the banner's Retry). */
  function retry() {
    live.retryNow();
    void loadQuietly();
  }

  return {
    stale, loadProblem, loadUnreachable, retry, loadQuietly, clock, surveyName, holdOrder, orderHeld: computed(() => heldOrder.value !== null),
    rows, visible, counts, loading, lastUpdated, now, centres, groups, breakTypes, filters, sort, surveys, limits, zoneOf, displayZone, multiZone,
    levelOf, secondsInState: (r: FloorRow) => secondsInState(r, now.value), load, schedule, loadLookups, setFilter, start, setLocked,
  };
});
