import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { odataString } from '../api/odata.ts';
import { fetchInterviewerOptions, type InterviewerOption } from './groups.ts';
import { usePagedCollection } from './paged-collection.ts';
import { fetchSurveyOptions, type SurveyOption } from './surveys.ts';

export type HistoryTab = 'calls' | 'breaks' | 'sessions' | 'variables';
export type HistoryRow = Record<string, unknown>;

/** The entity set behind each plain tab and the time field its range applies to. */
const SETS = {
  calls: { path: '/cati/callhistory', time: 'Time', hasSurvey: true },
  breaks: { path: '/cati/breakhistory', time: 'Time', hasSurvey: true },
  sessions: { path: '/cati/interviewersessionhistory', time: 'LoginTime', hasSurvey: false },
} as const;

const pad = (n: number) => String(n).padStart(2, '0');

/** A Date as the value of an `<input type="datetime-local">` (local time, minutes). */
export function toLocalInput(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Today from local midnight (inclusive) to the next local midnight (exclusive). */
export function todayRange(now = new Date()): { start: string; end: string } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return { start: toLocalInput(start), end: toLocalInput(end) };
}

/** A datetime-local value as an ISO UTC instant; throws a readable error when it is not a date. */
export function localInputToIso(value: string, label: string): string {
  const d = new Date(value);
  if (!value || Number.isNaN(d.getTime())) throw new Error(`${label} is not a valid date and time.`);
  return d.toISOString();
}

/** The History screen: calls / breaks / sessions over a time range with survey and interviewer filters, and the "with variables" view. */
export const useHistoryStore = defineStore('history', () => {
  const tab = ref<HistoryTab>('calls');
  const range = ref(todayRange());
  const surveyId = ref('');
  const interviewerId = ref<number | null>(null);
  const surveyIds = ref('');
  const variables = ref('');
  const includeBreakTimes = ref(false);
  const includeLoginLogoutInfo = ref(false);

  /** The variable names of the last "with variables" answer (its extra columns). */
  const variableColumns = ref<string[]>([]);

  const surveys = ref<SurveyOption[]>([]);
  const interviewers = ref<InterviewerOption[]>([]);

  const interviewerName = computed(() => {
    const byId = new Map(interviewers.value.map((i) => [i.InterviewerId, i.DisplayName ? `${i.DisplayName} (${i.Name})` : i.Name]));
    return (id: unknown) => (typeof id === 'number' ? (byId.get(id) ?? `#${id}`) : '');
  });

  async function loadOptions() {
    const [s, i] = await Promise.all([fetchSurveyOptions(), fetchInterviewerOptions()]);
    surveys.value = s;
    interviewers.value = i;
  }

  function timeBounds() {
    return { start: localInputToIso(range.value.start, 'From'), end: localInputToIso(range.value.end, 'To') };
  }

  const requestedVariables = () => variables.value.split(/[,;]/).map((v) => v.trim()).filter(Boolean);

  /** `$filter` of a plain tab: start inclusive, end exclusive, then the optional survey and interviewer. */
  function plainFilter(t: Exclude<HistoryTab, 'variables'>): string {
    const { start, end } = timeBounds();
    const set = SETS[t];
    const parts = [`${set.time} ge ${start}`, `${set.time} lt ${end}`];
    if (set.hasSurvey && surveyId.value) parts.push(`SurveyId eq ${odataString(surveyId.value)}`);
    if (interviewerId.value !== null) parts.push(`InterviewerId eq ${interviewerId.value}`);
    return parts.join(' and ');
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

  const list = usePagedCollection<HistoryRow>(() => (tab.value === 'variables' ? '/cati/callhistorywithvariables' : SETS[tab.value].path), {
    params: () => (tab.value === 'variables' ? variablesParams() : {}),
    filter: () => {
      const t = tab.value;
      if (t !== 'variables') return plainFilter(t);
      return interviewerId.value !== null ? `InterviewerId eq ${interviewerId.value}` : undefined;
    },
    orderby: () => (tab.value === 'variables' ? undefined : `${SETS[tab.value].time} desc`),
  });

  /** Loads the page at `offset`; a "with variables" answer brings its variable columns. */
  async function load(offset?: number) {
    const t = tab.value;
    const wanted = requestedVariables();
    if ((await list.load(offset)) && t === 'variables') variableColumns.value = wanted;
  }

  /** Runs the query from the first page (after the filters changed). */
  async function search() {
    await load(0);
  }

  async function setTab(t: HistoryTab) {
    tab.value = t;
    list.clear();
    await search();
  }

  async function goTo(offset: number) {
    await load(Math.max(0, offset));
  }

  async function resetToToday() {
    range.value = todayRange();
    await search();
  }

  return {
    tab, range, surveyId, interviewerId, surveyIds, variables, includeBreakTimes, includeLoginLogoutInfo,
    rows: list.items, total: list.total, skip: list.skip, pageSize: list.pageSize, loading: list.loading,
    variableColumns, surveys, interviewers, interviewerName, loadOptions, load, search, setTab, goTo, resetToToday,
  };
});
