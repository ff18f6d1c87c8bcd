import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection } from '../api/odata.ts';
import { useAddressQuery, type AddressField } from '../composables/address-query.ts';
import { sortRows, useTableSort } from '../composables/table-sort.ts';
import { t } from '../i18n/index.ts';
import { useDisplayZoneStore } from './display-zone.ts';
import { fetchCallCenters, fetchGroupOptions, fetchInterviewerOptions, OPTIONS_LIMIT, type CallCenter, type Group, type InterviewerOption } from './groups.ts';
import { presetRange, rangeAddressFields, rangeBounds, type RangePreset } from './history-range.ts';
import { loginSeconds, productivityRows, tallyByKey, withOpenBreaks, type BreakBucket, type OpenBreak, type OutcomeBucket, type ProductivityRow, type SessionSpan } from './report-math.ts';
import { fetchOutcomes } from './report-lookups.ts';
import { quietly, useResourceState } from './resource-state.ts';
import { aggregate, allOf, fetchEvery, odataTime, timeRange } from './report-queries.ts';
import { fetchSurveyOptions, type SurveyOption } from './surveys.ts';

/** A break type's id and name (`/cati/breaktypes`, docs/cati-api.md#floor). */
export interface BreakType {
  BreakTypeId: number;
  Name: string;
}

const CALL_FIGURES = 'aggregate($count as Calls,Duration with sum as Talk,WaitingTime with sum as Waiting)';
const BREAK_FIGURES = 'aggregate($count as Breaks,Duration with sum as Seconds)';

/** Interviewers of a group in one centre, or in every centre (a group can span several). */
async function groupMembers(groupId: number, centreIds: number[]): Promise<Set<number>> {
  const lists = await Promise.all(
    centreIds.map((c) =>
      request<ODataCollection<{ InterviewerId: number }>>('GET', `/cati/groups(${groupId})/Controller.GetInterviewers(callCenterId=${c})`, {
        query: { $select: 'InterviewerId', $top: 10_000 },
      }),
    ),
  );
  return new Set(lists.flatMap((l) => l.value.map((i) => i.InterviewerId)));
}

/** The Productivity report: per interviewer over a range, for a centre / group / survey; sorted in the browser; exportable. */
export const useProductivityStore = defineStore('productivity', () => {
  const preset = ref<RangePreset | null>('today');
  const range = ref(presetRange('today'));
  const centre = ref('');
  const group = ref('');
  const survey = ref('');
  const sort = useTableSort('Interviewer');

  const centres = ref<CallCenter[]>([]);
  const groups = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);
  const surveys = ref<SurveyOption[]>([]);
  const interviewers = ref<InterviewerOption[]>([]);
  const breakTypes = ref<BreakType[]>([]);
  const result = ref<{ rows: ProductivityRow[]; totals: ProductivityRow } | null>(null);
  const resource = useResourceState();
  /** The range is read in the display zone (the call centre's: its midnight to midnight). */
  const displayZone = useDisplayZoneStore();
  /** The range of the figures shown (datetime-local values in the display zone), for the export's file name. */
  const shownRange = ref<{ start: string; end: string } | null>(null);
  let latest = 0;

  async function loadOptions() {
    const [c, g, s, i, b] = await Promise.all([
      fetchCallCenters(),
      fetchGroupOptions(),
      fetchSurveyOptions(),
      fetchInterviewerOptions(),
      request<ODataCollection<BreakType>>('GET', '/cati/breaktypes', { query: { $select: 'BreakTypeId,Name', $orderby: 'Name', $top: OPTIONS_LIMIT } }),
    ]);
    centres.value = c;
    groups.value = g;
    surveys.value = s;
    interviewers.value = i;
    breakTypes.value = b.value;
  }

  const nameOf = (id: number) => {
    const i = interviewers.value.find((x) => x.InterviewerId === id);
    return i ? (i.DisplayName ? `${i.DisplayName} (${i.Name})` : i.Name) : `#${id}`;
  };

  /** Three aggregations (calls by outcome, breaks by type, per interviewer) and the sessions overlapping the range. */
  const load = () => resource.track(loadFigures, () => (result.value?.rows.length ?? 0) === 0);

  async function loadFigures() {
    const ticket = ++latest;
    await displayZone.load();
    const bounds = rangeBounds({ preset, range }, displayZone.zone);
    const asked = { ...range.value };
    const [start, end] = [Date.parse(bounds.start), Date.parse(bounds.end)];
    if (end <= start) throw new Error(t('storeMessages.toAfterFrom'));
    if (!interviewers.value.length) await loadOptions();
    const centreIds = centre.value ? [Number(centre.value)] : centres.value.map((c) => c.CallCenterId);
    const members = group.value ? await groupMembers(Number(group.value), centreIds) : undefined;
    const inCentre = centre.value && `CallCenterId eq ${Number(centre.value)}`;
    const ofMembers = members && (members.size ? `InterviewerId in (${[...members].join(',')})` : 'InterviewerId eq -1');
    const ofSurvey = survey.value && `SurveyId eq ${odataString(survey.value)}`;
    const [calls, breaks, openBreaks, sessions, outcomes] = await Promise.all([
      aggregate<OutcomeBucket & { InterviewerId: number | null }>(
        '/cati/callhistory',
        `filter(${allOf(timeRange('Time', start, end), inCentre, ofMembers, ofSurvey)})/groupby((InterviewerId,ExtendedStatus),${CALL_FIGURES})`,
      ),
      aggregate<BreakBucket>('/cati/breakhistory', `filter(${allOf(timeRange('Time', start, end), inCentre, ofMembers)})/groupby((InterviewerId,BreakTypeId),${BREAK_FIGURES})`),
      fetchEvery<OpenBreak>('/cati/breakhistory', { $filter: allOf('Duration eq null', timeRange('Time', start, end), inCentre, ofMembers), $select: 'InterviewerId,BreakTypeId,Time' }),
      fetchEvery<SessionSpan>('/cati/interviewersessionhistory', {
        $filter: allOf(`LoginTime lt ${odataTime(end)}`, `(LogoutTime eq null or LogoutTime gt ${odataTime(start)})`, inCentre, ofMembers),
        $select: 'InterviewerId,LoginTime,LogoutTime',
      }),
      fetchOutcomes(),
    ]);
    if (ticket !== latest) return;
    const tallies = tallyByKey(calls, (r) => r.InterviewerId, outcomes);
    // A survey narrows the report to the interviewers who called for it; their login time and breaks stay whole.
    const only = survey.value ? new Set(tallies.keys()) : members;
    const now = Date.now();
    result.value = productivityRows({ calls: tallies, login: loginSeconds(sessions, start, end, now), breaks: withOpenBreaks(breaks, openBreaks, sessions, end, now), nameOf, only });
    shownRange.value = asked;
  }

  async function usePreset(p: RangePreset) {
    preset.value = p;
    await load();
  }

  /** Break types that occur in the answer, by name (one pair of columns each). */
  const shownBreakTypes = computed(() => {
    const used = new Set(Object.keys(result.value?.totals.Breaks ?? {}).map(Number));
    const named = breakTypes.value.filter((b) => used.has(b.BreakTypeId));
    const unnamed = [...used].filter((id) => !named.some((b) => b.BreakTypeId === id)).map((id) => ({ BreakTypeId: id, Name: t('storeMessages.breakTypeFallback', { id }) }));
    return [...named, ...unnamed];
  });

  /** Reads a column for sorting: a row field, or `break:<id>:count|seconds`. */
  function columnValue(r: ProductivityRow, key: string): unknown {
    const m = /^break:(\d+):(count|seconds)$/.exec(key);
    if (m) return r.Breaks[Number(m[1])]?.[m[2] as 'count' | 'seconds'] ?? 0;
    return r[key as keyof ProductivityRow];
  }

  const rows = computed(() => sortRows(result.value?.rows ?? [], sort, columnValue));

  /** The period of the figures shown for file names: `2026-11-23_2026-11-30` (days in the display zone, end exclusive). */
  const period = computed(() => (shownRange.value ? `${shownRange.value.start.slice(0, 10)}_${shownRange.value.end.slice(0, 10)}` : null));

  const text = (r: { value: string }): AddressField => ({ get: () => r.value, set: (v) => (r.value = v) });
  const id = (r: { value: string }): AddressField => ({ get: () => r.value, set: (v) => (r.value = /^\d+$/.test(v) ? v : '') });
  useAddressQuery(
    'productivity',
    { ...rangeAddressFields({ preset, range }), centre: id(centre), group: id(group), survey: text(survey), orderby: sort.field },
    () => quietly(load),
  );

  return {
    preset, range, centre, group, survey, sort, centres, groups, surveys, breakTypes, shownBreakTypes, resource, shownRange, period,
    rows, totals: computed(() => result.value?.totals ?? null), loadOptions, load, usePreset, columnValue,
  };
});
