import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection } from '../api/odata.ts';
import { useAddressQuery, type AddressField } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { formatNumber, t as translate } from '../i18n/index.ts';
import { useDisplayZoneStore } from './display-zone.ts';
import { fetchBreakTypes, type BreakType } from './break-types.ts';
import { fetchCallCenters, fetchInterviewerOptions, type CallCenter, type InterviewerOption } from './groups.ts';
import { presetRange, rangeAddressFields, rangeBounds, secondsBound, type RangePreset } from './history-range.ts';
import { usePagedCollection } from './paged-collection.ts';
import { categoryFilter, fetchOutcomes, OUTCOME_CATEGORIES, type Outcome, type OutcomeCategory } from './report-lookups.ts';
import { fetchSurveyOptions, type SurveyOption } from './surveys.ts';

export type HistoryTab = 'calls' | 'breaks' | 'sessions' | 'variables';
export type HistoryRow = Record<string, unknown>;

/** The entity set behind each plain tab, the time field its range applies to, and its key (the sort's tie-breaker). */
const SETS = {
  calls: { path: '/cati/callhistory', time: 'Time', key: 'Id', hasSurvey: true },
  breaks: { path: '/cati/breakhistory', time: 'Time', key: 'Id', hasSurvey: true },
  sessions: { path: '/cati/interviewersessionhistory', time: 'LoginTime', key: 'SessionId', hasSurvey: false },
} as const;
/** An export reads the rows in pages of this many, and at most EXPORT_MAX (the browser builds the file). */
const EXPORT_PAGE = 10_000;
const EXPORT_MAX = 200_000;
const TABS: HistoryTab[] = ['calls', 'breaks', 'sessions', 'variables'];
const defaultSort = (t: HistoryTab): [string, boolean] => (t === 'variables' ? ['NumberInOrder', false] : [SETS[t].time, true]);

/** The History screen: calls / breaks / sessions over a time range with filters (kept in the address), sortable, exportable. */
export const useHistoryStore = defineStore('history', () => {
  const tab = ref<HistoryTab>('calls');
  /** A preset range follows the clock (a bookmark of "today" shows today); null = the range typed in. */
  const preset = ref<RangePreset | null>('today');
  const range = ref(presetRange('today'));
  const surveyId = ref('');
  const interviewerId = ref<number | null>(null);
  /** '' = any; a code ('3'); or a category ('Complete'). */
  const outcome = ref('');
  const bounds = ref({ durMin: '', durMax: '', waitMin: '', waitMax: '' });
  const centre = ref('');
  /** '' = any break type; else its id (the breaks tab). */
  const breakType = ref('');
  const surveyIds = ref('');
  const variables = ref('');
  const includeBreakTimes = ref(false);
  const includeLoginLogoutInfo = ref(false);
  const sort = useTableSort('Time', true, () => (tab.value === 'variables' ? undefined : `${SETS[tab.value].key} desc`));

  /** The variable names of the last "with variables" answer (its extra columns). */
  const variableColumns = ref<string[]>([]);
  const surveys = ref<SurveyOption[]>([]);
  const interviewers = ref<InterviewerOption[]>([]);
  const outcomes = ref<Outcome[]>([]);
  const callCenters = ref<CallCenter[]>([]);
  const breakTypes = ref<BreakType[]>([]);

  const interviewerName = computed(() => {
    const byId = new Map(interviewers.value.map((i) => [i.InterviewerId, i.DisplayName ? `${i.DisplayName} (${i.Name})` : i.Name]));
    return (id: unknown) => (typeof id === 'number' ? (byId.get(id) ?? `#${id}`) : '');
  });

  async function loadOptions() {
    const [s, i, o, c, b] = await Promise.all([fetchSurveyOptions(), fetchInterviewerOptions(), fetchOutcomes(), fetchCallCenters(), fetchBreakTypes()]);
    breakTypes.value = b;
    surveys.value = s;
    interviewers.value = i;
    outcomes.value = o;
    callCenters.value = c;
  }

  /** Times are shown, and the range's wall times read, in the display zone (the call centre's). */
  const displayZone = useDisplayZoneStore();
  const timeBounds = () => rangeBounds({ preset, range }, displayZone.zone);

  const requestedVariables = () => variables.value.split(/[,;]/).map((v) => v.trim()).filter(Boolean);

  /** The outcome, duration, waiting-time and centre conditions of the calls tab (the centre also on breaks and sessions). */
  function extraFilters(t: HistoryTab): string[] {
    const parts: string[] = [];
    if (t === 'calls') {
      const o = outcome.value;
      if (OUTCOME_CATEGORIES.includes(o as OutcomeCategory)) parts.push(categoryFilter(outcomes.value, o as OutcomeCategory));
      else if (/^-?\d+$/.test(o)) parts.push(`ExtendedStatus eq ${Number(o)}`);
      const b = bounds.value;
      const add = (field: string, op: string, value: string, label: string) => {
        const n = secondsBound(value, label);
        if (n !== null) parts.push(`${field} ${op} ${n}`);
      };
      add('Duration', 'ge', b.durMin, translate('history.durMin'));
      add('Duration', 'le', b.durMax, translate('history.durMax'));
      add('WaitingTime', 'ge', b.waitMin, translate('history.waitMin'));
      add('WaitingTime', 'le', b.waitMax, translate('history.waitMax'));
    }
    if (t === 'breaks' && /^\d+$/.test(breakType.value)) parts.push(`BreakTypeId eq ${breakType.value}`);
    if (t !== 'variables' && /^\d+$/.test(centre.value)) parts.push(`CallCenterId eq ${centre.value}`);
    return parts;
  }

  /** `$filter` of a tab: start inclusive, end exclusive, then the optional filters. */
  function filterOf(t: HistoryTab): string | undefined {
    if (t === 'variables') return interviewerId.value !== null ? `InterviewerId eq ${interviewerId.value}` : undefined;
    const { start, end } = timeBounds();
    const set = SETS[t];
    const parts = [`${set.time} ge ${start}`, `${set.time} lt ${end}`];
    if (set.hasSurvey && surveyId.value) parts.push(`SurveyId eq ${odataString(surveyId.value)}`);
    if (interviewerId.value !== null) parts.push(`InterviewerId eq ${interviewerId.value}`);
    return [...parts, ...extraFilters(t)].join(' and ');
  }

  /** The "with variables" function parameters (its `$filter` is only the interviewer). */
  function variablesParams() {
    const { start, end } = timeBounds();
    return {
      startTime: start,
      endTime: end,
      surveyIds: surveyIds.value.trim() || undefined,
      variables: requestedVariables().join(',') || undefined,
      includeBreakTimes: includeBreakTimes.value,
      includeLoginLogoutInfo: includeLoginLogoutInfo.value,
    };
  }

  const pathOf = (t: HistoryTab) => (t === 'variables' ? '/cati/callhistorywithvariables' : SETS[t].path);
  const list = usePagedCollection<HistoryRow>(() => pathOf(tab.value), {
    params: () => (tab.value === 'variables' ? variablesParams() : {}),
    filter: () => filterOf(tab.value),
    sort,
  });

  /** Loads the page at `offset`; a "with variables" answer brings its variable columns. */
  async function load(offset?: number) {
    await displayZone.load(); // the range is that zone's midnight to midnight
    const t = tab.value;
    const wanted = requestedVariables();
    if ((await list.load(offset)) && t === 'variables') variableColumns.value = wanted;
  }

  const search = () => load(0);

  /** The screen's first load: the pickers' options (an outcome category in the address needs them), then the rows — one resource state for both. */
  const open = () =>
    list.resource.track(async () => {
      await loadOptions();
      await load();
    }, () => list.items.value.length === 0);

  function selectTab(t: HistoryTab) {
    tab.value = t;
    sort.set(...defaultSort(t));
  }

  async function setTab(t: HistoryTab) {
    selectTab(t);
    list.clear();
    await search();
  }

  const goTo = (offset: number) => load(Math.max(0, offset));

  async function usePreset(p: RangePreset) {
    preset.value = p;
    await search();
  }

  /** Every row of the current query (all pages, in the table's order), for an export of what the screen shows; refuses more than EXPORT_MAX. */
  async function allRows(): Promise<HistoryRow[]> {
    await displayZone.load();
    const t = tab.value;
    const query = { ...(t === 'variables' ? variablesParams() : {}), $filter: filterOf(t), $orderby: sort.orderby() };
    const rows: HistoryRow[] = [];
    for (let skip = 0; ; skip += EXPORT_PAGE) {
      const page = await request<ODataCollection<HistoryRow>>('GET', pathOf(t), { query: { ...query, $top: EXPORT_PAGE, $skip: skip || undefined } });
      rows.push(...page.value);
      if (page.value.length < EXPORT_PAGE) return rows;
      if (rows.length >= EXPORT_MAX) throw new Error(translate('history.tooMany', { max: formatNumber(EXPORT_MAX) }));
    }
  }

  /** The range's days in the display zone for file names: `2026-11-23_2026-11-30` (start inclusive, end exclusive). */
  const period = () => `${range.value.start.slice(0, 10)}_${range.value.end.slice(0, 10)}`;


  const text = (r: { value: string }): AddressField => ({ get: () => r.value, set: (v) => (r.value = v) });
  const bound = (k: keyof typeof bounds.value): AddressField => ({ get: () => bounds.value[k], set: (v) => (bounds.value[k] = /^\d+$/.test(v) ? v : '') });
  const flag = (r: { value: boolean }): AddressField => ({ get: () => (r.value ? '1' : ''), set: (v) => (r.value = v === '1') });
  useAddressQuery(
    'history',
    {
      tab: { get: () => (tab.value === 'calls' ? '' : tab.value), set: (v) => selectTab(TABS.includes(v as HistoryTab) ? (v as HistoryTab) : 'calls') },
      ...rangeAddressFields({ preset, range }),
      survey: text(surveyId),
      interviewer: { get: () => (interviewerId.value === null ? '' : String(interviewerId.value)), set: (v) => (interviewerId.value = /^\d+$/.test(v) ? Number(v) : null) },
      outcome: text(outcome),
      durMin: bound('durMin'),
      durMax: bound('durMax'),
      waitMin: bound('waitMin'),
      waitMax: bound('waitMax'),
      centre: text(centre),
      breakType: { get: () => breakType.value, set: (v) => (breakType.value = /^\d+$/.test(v) ? v : '') },
      surveyIds: text(surveyIds),
      variables: text(variables),
      breaks: flag(includeBreakTimes),
      logins: flag(includeLoginLogoutInfo),
      orderby: sort.field,
    },
    search,
  );

  return {
    tab, preset, range, surveyId, interviewerId, outcome, bounds, centre, breakType, breakTypes, surveyIds, variables, includeBreakTimes, includeLoginLogoutInfo, sort,
    rows: list.items, total: list.total, skip: list.skip, pageSize: list.pageSize, loading: list.loading, resource: list.resource,
    variableColumns, surveys, interviewers, outcomes, callCenters, interviewerName,
    loadOptions, open, load, search, setTab, goTo, usePreset, allRows, period,
  };
});
