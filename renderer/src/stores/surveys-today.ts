import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection } from '../api/odata.ts';
import { screenHref, useAddressQuery } from '../composables/address-query.ts';
import { sortRows, useTableSort } from '../composables/table-sort.ts';
import { OPTIONS_LIMIT } from './groups.ts';
import { quietly, useResourceState } from './resource-state.ts';
import { attempt } from './notices.ts';
import { toLocalInput } from './history-range.ts';
import { useDisplayZoneStore } from './display-zone.ts';
import { emptyTally, perHour, tallyByKey, type CallTally, type OutcomeBucket } from './report-math.ts';
import { categoryFilter, fetchOutcomes, type Outcome, type OutcomeCategory } from './report-lookups.ts';
import { aggregate, allOf, timeRange } from './report-queries.ts';
import type { Survey } from './surveys.ts';
import { hourlySeries, zoneDays, type HourBucket, type HourlySeries } from './zone-hours.ts';

/** A call centre with its zone (docs/cati-api.md#floor). */
export interface CentreZone {
  CallCenterId: number;
  Name: string;
  TimeZone: string;
}

/** One survey's line: today's calls by category, completes per hour of calling, completes so far against the sample. */
export interface SurveyDayRow extends CallTally {
  SurveyId: string | null;
  SurveyName: string;
  SampleSize: number | null;
  CompletesPerHour: number | null;
  /** Null while being counted. */
  CompletesSoFar: number | null;
  Progress: number | null;
}

type SurveyBucket = OutcomeBucket & { SurveyId: string };
type SurveyInfo = Pick<Survey, 'SurveyId' | 'SurveyName' | 'SampleSize' | 'State'>;

const PER_OUTCOME = 'aggregate($count as Calls,Duration with sum as Talk,WaitingTime with sum as Waiting)';
const PER_HOUR = 'compute(date(Time) as Day,hour(Time) as Hour)/groupby((Day,Hour),aggregate($count as Calls))';

/** The "Surveys today" report of one call centre: per survey outcomes and progress, calls per hour today against yesterday. */
export const useSurveysTodayStore = defineStore('surveys-today', () => {
  const centreId = ref<number | null>(null);
  const centres = ref<CentreZone[]>([]);
  const outcomes = ref<Outcome[]>([]);
  const surveys = ref<SurveyInfo[]>([]);
  const tallies = ref(new Map<string, CallTally>());
  /** Completes ever per survey; null while being counted. */
  const completesSoFar = ref<Map<string, number> | null>(null);
  const series = ref<HourlySeries | null>(null);
  const days = ref<ReturnType<typeof zoneDays> | null>(null);
  const asOf = ref<number | null>(null);
  const resource = useResourceState();
  const sort = useTableSort('SurveyName');
  /** History reads its range in the display zone: the links to it give this centre's day on that zone's clock. */
  const displayZone = useDisplayZoneStore();

  const centre = computed(() => centres.value.find((c) => c.CallCenterId === centreId.value) ?? null);

  async function loadOptions() {
    const [c, o, s] = await Promise.all([
      request<ODataCollection<CentreZone>>('GET', '/cati/callcenters', { query: { $select: 'CallCenterId,Name,TimeZone', $orderby: 'CallCenterId', $top: OPTIONS_LIMIT } }),
      fetchOutcomes(),
      request<ODataCollection<SurveyInfo>>('GET', '/cati/surveys', {
        query: { $select: 'SurveyId,SurveyName,SampleSize,State', $orderby: 'SurveyName', $top: OPTIONS_LIMIT },
      }),
    ]);
    centres.value = c.value;
    outcomes.value = o;
    surveys.value = s.value;
    if (!centre.value) centreId.value = c.value[0]?.CallCenterId ?? null;
  }

  let latest = 0;

  /**
   * Completes ever of the surveys with a sample size on the screen: by survey id, so only their calls are read (the
   * survey index), never the whole history; they arrive on their own and never hold up today's figures.
   */
  async function countSoFar(ticket: number, ids: string[]) {
    const soFar = ids.length
      ? await aggregate<{ SurveyId: string; Completes: number }>(
          '/cati/callhistory',
          `filter(SurveyId in (${ids.map(odataString).join(',')}) and ${categoryFilter(outcomes.value, 'Complete')})/groupby((SurveyId),aggregate($count as Completes))`,
        )
      : [];
    if (ticket === latest) completesSoFar.value = new Map(soFar.map((r) => [r.SurveyId, Number(r.Completes)]));
  }

  /** Today and yesterday in the centre's zone, then aggregations: outcomes per survey, each day's hours; then progress. */
  const load = () => resource.track(loadFigures, () => rows.value.length === 0);

  async function loadFigures() {
    void displayZone.load(); // for the links to History
    if (!centres.value.length) await loadOptions();
    const c = centre.value;
    if (!c) return;
    const ticket = ++latest;
    const now = Date.now();
    const d = zoneDays(c.TimeZone, now);
    const inCentre = `CallCenterId eq ${c.CallCenterId}`;
    const dayFilter = (day: [number, number]) => allOf(timeRange('Time', ...day), inCentre);
    const [perSurvey, hoursToday, hoursYesterday] = await Promise.all([
      aggregate<SurveyBucket>('/cati/callhistory', `filter(${dayFilter(d.today)})/groupby((SurveyId,ExtendedStatus),${PER_OUTCOME})`),
      aggregate<HourBucket>('/cati/callhistory', `filter(${dayFilter(d.today)})/${PER_HOUR}`),
      aggregate<HourBucket>('/cati/callhistory', `filter(${dayFilter(d.yesterday)})/${PER_HOUR}`),
    ]);
    if (ticket !== latest) return;
    tallies.value = tallyByKey(perSurvey, (r) => r.SurveyId, outcomes.value);
    series.value = hourlySeries({ today: hoursToday, yesterday: hoursYesterday }, c.TimeZone, d);
    days.value = d;
    asOf.value = now;
    const sampled = rows.value.filter((r) => r.SampleSize && r.SurveyId !== null).map((r) => r.SurveyId!);
    void attempt(() => countSoFar(ticket, sampled));
  }

  // Another centre's figures are not this one's: nothing is shown until its own arrive.
  watch(centreId, (now, before) => {
    if (before === null) return;
    asOf.value = null;
    tallies.value = new Map();
    series.value = null;
    resource.reset();
  });

  /** Open surveys and every survey with calls today. */
  const rows = computed<SurveyDayRow[]>(() => {
    if (asOf.value === null) return []; // no figures received yet: no zeros either
    const list = surveys.value.filter((s) => s.State === 'Open' || tallies.value.has(s.SurveyId));
    const known = new Set(list.map((s) => s.SurveyId));
    const unknown = [...tallies.value.keys()].filter((id) => !known.has(id)).map((id) => ({ SurveyId: id, SurveyName: id, SampleSize: null }));
    const lines = [...list, ...unknown].map((s) => lineOf(s.SurveyId, s.SurveyName, s.SampleSize, tallies.value.get(s.SurveyId)));
    return sortRows(lines, sort, (r, k) => r[k as keyof SurveyDayRow]);
  });

  function lineOf(id: string | null, name: string, sample: number | null, t: CallTally | undefined): SurveyDayRow {
    const tally = t ?? emptyTally();
    const soFar = id === null || !completesSoFar.value ? null : (completesSoFar.value.get(id) ?? 0);
    return {
      ...tally,
      SurveyId: id,
      SurveyName: name,
      SampleSize: sample,
      CompletesPerHour: perHour(tally.Complete, tally.Talk + tally.Waiting),
      CompletesSoFar: soFar,
      Progress: sample && soFar !== null ? soFar / sample : null,
    };
  }

  /** Every survey's calls today together. */
  const totals = computed<SurveyDayRow>(() => {
    const sum = emptyTally();
    for (const t of tallies.value.values()) for (const k of Object.keys(sum) as (keyof CallTally)[]) sum[k] += t[k];
    return lineOf(null, 'All surveys', null, sum);
  });

  /** The History screen's address for today's calls of this centre (a survey, an outcome category: optional). */
  function historyLink(surveyId: string | null, category: OutcomeCategory | null): string {
    const today = days.value?.today;
    if (!today) return '#/history';
    return screenHref('history', {
      range: 'custom',
      from: toLocalInput(today[0], displayZone.zone),
      to: toLocalInput(today[1], displayZone.zone),
      survey: surveyId,
      outcome: category,
      centre: centreId.value,
    });
  }

  useAddressQuery(
    'surveys-today',
    {
      centre: { get: () => (centreId.value === null ? '' : String(centreId.value)), set: (v) => (centreId.value = /^\d+$/.test(v) ? Number(v) : null) },
      orderby: sort.field,
    },
    () => quietly(load),
  );

  return { centreId, centres, centre, outcomes, rows, totals, series, days, asOf, resource, sort, loadOptions, load, historyLink };
});

