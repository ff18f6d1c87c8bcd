import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';
import {
  fetchCallCenters, fetchGroupOptions, fetchInterviewerOptions, OPTIONS_LIMIT, type CallCenter, type Group, type InterviewerOption,
} from './groups.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { fetchSurveyWorkers, type SurveyWorker } from './effective-assignments.ts';
import { usePagedCollection } from './paged-collection.ts';
import { quietly, useResourceState } from './resource-state.ts';

export type SurveyState = 'Open' | 'Closed';

export interface Survey extends WithEtag {
  SurveyId: string;
  SurveyName: string;
  SampleSize: number;
  State: SurveyState;
}

/** `Controller.GetBasicProperties()` of a survey. */
export interface BasicProperties {
  SurveyId: string;
  ExtendedStatusGroup: string | null;
  Scheduling: string | null;
  CallDeliveryMode: 'InOrder' | 'Random';
  CallGroups: boolean;
}

/** One row of a survey's `Controller.GetAssignments(callCenterId)`. */
export interface ResourceAssignment {
  ResourceId: number;
  Name: string;
  IsGroup: boolean;
  AssignedCallsCount: number;
}

export type SurveyOption = Pick<Survey, 'SurveyId' | 'SurveyName' | 'State'>;

/** What removing a resource from a survey really did, as the server's assignments tell after it. */
export interface RemoveOutcome {
  changed: boolean;
  /** The resource's row just before the removal (read again first); undefined when it was no longer listed. */
  before: ResourceAssignment | undefined;
  /** The resource's row after the removal; undefined when it is no longer listed. */
  after: ResourceAssignment | undefined;
}

/** Survey ids, names and states for pickers (SoftDeleted surveys are never listed by the API). */
export async function fetchSurveyOptions(): Promise<SurveyOption[]> {
  const page = await request<ODataCollection<SurveyOption>>('GET', '/cati/surveys', {
    query: { $select: 'SurveyId,SurveyName,State', $orderby: 'SurveyName', $top: OPTIONS_LIMIT },
  });
  return page.value;
}

/** The Surveys screen: one page of surveys (filter by state and name), the selected survey's properties and assignments. */
export const useSurveysStore = defineStore('surveys', () => {
  const search = ref('');
  const state = ref<SurveyState | ''>('');
  const filter = () => {
    const parts: string[] = [];
    if (state.value) parts.push(`State eq ${odataString(state.value)}`);
    const s = search.value.trim().toLowerCase();
    if (s) parts.push(`(contains(tolower(SurveyName),${odataString(s)}) or contains(SurveyId,${odataString(s)}))`);
    return parts.length ? parts.join(' and ') : undefined;
  };
  const sort = useTableSort('SurveyName', false, 'SurveyId');
  const list = usePagedCollection<Survey>('/cati/surveys', { filter, select: 'SurveyId,SurveyName,SampleSize,State', sort });
  const selected = ref<Survey | null>(null);
  const basic = ref<BasicProperties | null>(null);
  const callCenterId = ref(1);
  const resources = ref<ResourceAssignment[]>([]);
  /** Who can work the selected survey in the chosen call centre (explicitly or through groups), and who is logged in. */
  const workers = ref<SurveyWorker[]>([]);
  // The detail panel's pickers, refreshed each time a survey is opened (call centres, groups and interviewers change elsewhere).
  const callCenters = ref<CallCenter[]>([]);
  const groupOptions = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);
  const interviewerOptions = ref<InterviewerOption[]>([]);
  /** The opened survey's assignments and workers: loading / empty / failed / offline (docs/screens.md#truth). */
  const detail = useResourceState();
  /** A survey asked for by the address (`#/surveys?survey=p700`) that is being opened. */
  const wantedSurvey = ref<string | null>(null);

  /** An interviewer's display name (else its login name), as the pickers know it. */
  const interviewerName = (id: number, login: string) => interviewerOptions.value.find((i) => i.InterviewerId === id)?.DisplayName || login;

  async function setFilter(name: string, wantedState: SurveyState | '') {
    search.value = name;
    state.value = wantedState;
    await list.load(0);
  }

  const surveyPath = (s: Survey) => `/cati/surveys(${odataString(s.SurveyId)})`;

  /** Opens a survey in the detail panel: its basic properties and its assignments in the chosen call centre. */
  async function open(survey: Survey) {
    selected.value = survey;
    basic.value = null;
    resources.value = [];
    workers.value = [];
    detail.reset();
    const [props, centres, groups, interviewers] = await Promise.all([
      request<BasicProperties>('GET', `${surveyPath(survey)}/Controller.GetBasicProperties()`),
      fetchCallCenters(),
      fetchGroupOptions(),
      fetchInterviewerOptions(),
    ]);
    basic.value = props;
    callCenters.value = centres;
    groupOptions.value = groups;
    interviewerOptions.value = interviewers;
    await loadAssignments();
  }

  async function loadAssignments() {
    const s = selected.value;
    if (!s) return;
    const centre = callCenterId.value;
    await detail.track(async () => {
      const page = await request<ODataCollection<ResourceAssignment>>('GET', `${surveyPath(s)}/Controller.GetAssignments(callCenterId=${centre})`);
      const found = await fetchSurveyWorkers(centre, page.value);
      // Another survey or call centre was chosen meanwhile: that choice's answer is the one to show, whichever comes last.
      if (selected.value?.SurveyId !== s.SurveyId || callCenterId.value !== centre) return;
      // Groups first, then interviewers, each by name.
      resources.value = [...page.value].sort((a, b) => Number(b.IsGroup) - Number(a.IsGroup) || a.Name.localeCompare(b.Name));
      workers.value = found;
    }, () => resources.value.length === 0);
  }

  /** Opens the survey of an address (`#/surveys?survey=p700`): read by id, then opened; '' closes the detail. */
  function openFromAddress(value: string) {
    if (!value) {
      wantedSurvey.value = null;
      selected.value = null;
      return;
    }
    wantedSurvey.value = value;
    void quietly(async () => {
      try {
        const survey = await request<Survey>('GET', `/cati/surveys(${odataString(value)})`, { query: { $select: 'SurveyId,SurveyName,SampleSize,State' } });
        if (wantedSurvey.value === value) await open(survey);
      } finally {
        if (wantedSurvey.value === value) wantedSurvey.value = null;
      }
    });
  }

  // The filters, the sort and the opened survey live in the address, so a reload or a shared link opens the same.
  useAddressQuery(
    'surveys',
    {
      q: { get: () => search.value, set: (v) => (search.value = v) },
      state: { get: () => state.value, set: (v) => (state.value = v === 'Open' || v === 'Closed' ? v : '') },
      orderby: sort.field,
      survey: { get: () => wantedSurvey.value ?? selected.value?.SurveyId ?? '', set: openFromAddress },
    },
    () => list.load(0),
  );

  async function setCallCenter(id: number) {
    callCenterId.value = id;
    await loadAssignments();
  }

  /** Assigns (or with `assign` false de-assigns) an interviewer or a group (in the chosen call centre) to the selected survey. */
  async function setAssigned(kind: 'interviewer' | 'group', resourceId: number, assign: boolean) {
    const s = selected.value;
    if (!s) return;
    const op = assign ? 'AssignOnSurvey' : 'DeAssignFromSurvey';
    const path = kind === 'group'
      ? `/cati/groups(${resourceId})/Controller.${op}(surveyId=${odataString(s.SurveyId)},callCenterId=${callCenterId.value})`
      : `/cati/interviewers(${resourceId})/Controller.${op}(surveyId=${odataString(s.SurveyId)})`;
    await request('GET', path, { change: true });
    await loadAssignments();
  }

  /**
   * Removes everything that lists a resource on the selected survey: its survey assignment AND its call
   * assignments (docs/cati-api.md#semantics: DeAssignFromSurvey and DeAssignFromCalls), then reads the assignments again.
   * Answers what the server confirmed: whether the row is gone or its assignments shrank, and the row as it
   * is now (undefined when gone). The functions answer true whatever they did, so only the re-read tells.
   */
  async function removeResource(r: ResourceAssignment): Promise<RemoveOutcome> {
    const s = selected.value;
    if (!s) return { changed: false, before: undefined, after: r };
    await loadAssignments(); // what is assigned now, not what the list showed
    const before = resources.value.find((x) => x.IsGroup === r.IsGroup && x.ResourceId === r.ResourceId);
    if (!before) return { changed: false, before, after: undefined };
    const survey = odataString(s.SurveyId);
    const base = r.IsGroup ? `/cati/groups(${r.ResourceId})/Controller` : `/cati/interviewers(${r.ResourceId})/Controller`;
    const args = r.IsGroup ? `surveyId=${survey},callCenterId=${callCenterId.value}` : `surveyId=${survey}`;
    await request('GET', `${base}.DeAssignFromSurvey(${args})`);
    await request('GET', `${base}.DeAssignFromCalls(${args})`);
    await loadAssignments();
    const after = resources.value.find((x) => x.IsGroup === r.IsGroup && x.ResourceId === r.ResourceId);
    return { changed: !after || after.AssignedCallsCount < before.AssignedCallsCount, before, after };
  }

  return {
    ...list, search, state, sort, selected, basic, callCenterId, resources, workers, callCenters, groupOptions, interviewerOptions, detail,
    interviewerName, setFilter, open, loadAssignments, setCallCenter, setAssigned, removeResource,
  };
});
