import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';
import { fetchInterviewerSurveys, type InterviewerSurvey } from './effective-assignments.ts';
import { fetchCallCenters, fetchGroupOptions, OPTIONS_LIMIT, type CallCenter, type Group } from './groups.ts';
import { fetchLoggedInIds } from './logged-in.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { usePagedCollection } from './paged-collection.ts';
import { useResourceState } from './resource-state.ts';

export type DialType = 'Automatic' | 'Manual' | 'Assisted';
export type AssignmentsListMode = 'AssignedCallsOnly' | 'AllCalls';

export interface Interviewer extends WithEtag {
  InterviewerId: number;
  Name: string;
  DisplayName: string | null;
  Description: string | null;
  CallCenterId: number;
  Location: string | null;
  DialType: DialType;
  AssignmentsListMode: AssignmentsListMode;
  IsLocked: boolean;
  LockedDate: string | null;
  PwdSetDate: string | null;
}

/** The writable fields the form edits (`/interviewerproperties`); an empty password leaves it unchanged. */
export interface InterviewerDraft {
  Name: string;
  DisplayName: string;
  Description: string;
  CallCenterId: number;
  Location: string;
  DialType: DialType;
  AssignmentsListMode: AssignmentsListMode;
  Password: string;
  /** Ids of the groups the interviewer is a direct member of (none = the root group "CATI Interviewers"); null = not known, left unchanged. */
  ParentGroups: number[] | null;
}

/** An empty form, or one filled from an existing interviewer (its groups are fetched apart: `fetchGroupIdsOf`). */
export function draftOf(i?: Interviewer): InterviewerDraft {
  return {
    Name: i?.Name ?? '',
    DisplayName: i?.DisplayName ?? '',
    Description: i?.Description ?? '',
    CallCenterId: i?.CallCenterId ?? 1,
    Location: i?.Location ?? '',
    DialType: i?.DialType ?? 'Manual',
    AssignmentsListMode: i?.AssignmentsListMode ?? 'AllCalls',
    Password: '',
    ParentGroups: i ? null : [],
  };
}

function toBody(d: InterviewerDraft) {
  const body: Record<string, unknown> = {
    Name: d.Name.trim(),
    DisplayName: d.DisplayName.trim() || null,
    Description: d.Description.trim() || null,
    CallCenterId: d.CallCenterId,
    Location: d.Location.trim() || null,
    DialType: d.DialType,
    AssignmentsListMode: d.AssignmentsListMode,
  };
  if (d.Password) body.Password = d.Password;
  if (d.ParentGroups) body.ParentGroups = d.ParentGroups;
  return body;
}

/** Ids of the groups an interviewer is a direct member of (`Controller.GetGroups()`). */
export async function fetchGroupIdsOf(interviewerId: number): Promise<number[]> {
  const page = await request<ODataCollection<Pick<Group, 'GroupId'>>>('GET', `/cati/interviewers(${interviewerId})/Controller.GetGroups()`, {
    query: { $orderby: 'Name', $top: OPTIONS_LIMIT },
  });
  return page.value.map((g) => g.GroupId);
}

/** The interviewer filter by state: locked or not, logged in now (an open session) or not. */
export type InterviewerState = '' | 'locked' | 'active' | 'loggedIn' | 'loggedOut';
export const INTERVIEWER_STATES: InterviewerState[] = ['', 'locked', 'active', 'loggedIn', 'loggedOut'];

/** The interviewers screen: one page with search, state filter and sort (kept in the address), lock/unlock, create and edit. */
export const useInterviewersStore = defineStore('interviewers', () => {
  const search = ref('');
  const state = ref<InterviewerState>('');
  const loggedIn = ref(new Set<number>());
  const filter = () => {
    const parts: string[] = [];
    const s = search.value.trim().toLowerCase();
    if (s) parts.push(`(contains(tolower(Name),${odataString(s)}) or contains(tolower(DisplayName),${odataString(s)}))`);
    if (state.value === 'locked' || state.value === 'active') parts.push(`IsLocked eq ${state.value === 'locked'}`);
    if (state.value === 'loggedIn' || state.value === 'loggedOut') {
      const ids = [...loggedIn.value].join(',');
      const inSet = ids ? `InterviewerId in (${ids})` : 'InterviewerId eq -1';
      parts.push(state.value === 'loggedIn' ? inSet : `not (${inSet})`);
    }
    return parts.length ? parts.join(' and ') : undefined;
  };
  const sort = useTableSort('Name', false, 'InterviewerId');
  const list = usePagedCollection<Interviewer>('/cati/interviewers', { filter, sort });

  /** Loads a page with who is logged in now (the filter and the "Logged in" column need it). */
  function load(offset?: number): Promise<boolean> {
    return list.resource.track(async () => {
      loggedIn.value = await fetchLoggedInIds();
      return list.load(offset);
    }, () => list.items.value.length === 0);
  }
  const goTo = (offset: number) => load(Math.max(0, offset));
  useAddressQuery(
    'interviewers',
    {
      q: { get: () => search.value, set: (v) => (search.value = v) },
      state: { get: () => state.value, set: (v) => (state.value = INTERVIEWER_STATES.includes(v as InterviewerState) ? (v as InterviewerState) : '') },
      orderby: sort.field,
    },
    () => load(0),
  );

  async function setFilter(text: string, wanted: InterviewerState) {
    search.value = text;
    state.value = wanted;
    await load(0);
  }
  /** The groups the form offers, by name. */
  const groupOptions = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);

  /** The call centres, for names in the list and the form's picker. */
  const callCenters = ref<CallCenter[]>([]);

  /** The form's choices (groups and call centres): the form says "Loading…" and waits until they arrived. */
  const optionsState = useResourceState();

  /** The form's choices: groups and call centres. */
  async function loadGroupOptions() {
    await optionsState.track(async () => {
      [groupOptions.value, callCenters.value] = await Promise.all([fetchGroupOptions(), fetchCallCenters()]);
    }, () => false);
  }

  /** The interviewer whose surveys are shown, and those surveys with how it can work them. */
  const surveysOf = ref<{ interviewer: Interviewer; rows: InterviewerSurvey[] } | null>(null);

  /** The surveys table's loading state (docs/screens.md#truth). */
  const surveysState = useResourceState();

  async function openSurveys(interviewer: Interviewer) {
    surveysOf.value = { interviewer, rows: [] };
    await loadSurveys();
  }

  /** Reads the shown interviewer's surveys (again: Retry). */
  async function loadSurveys() {
    const shown = surveysOf.value;
    if (!shown) return;
    const id = shown.interviewer.InterviewerId;
    await surveysState.track(async () => {
      const rows = await fetchInterviewerSurveys(id, shown.interviewer.CallCenterId);
      if (surveysOf.value?.interviewer.InterviewerId === id) surveysOf.value = { interviewer: shown.interviewer, rows };
    }, () => (surveysOf.value?.rows.length ?? 0) === 0);
  }

  async function create(draft: InterviewerDraft): Promise<Interviewer> {
    const created = await request<Interviewer>('POST', '/cati/interviewerproperties', { body: toBody(draft) });
    await load();
    return created;
  }

  async function update(item: Interviewer, draft: InterviewerDraft): Promise<Interviewer> {
    const headers: Record<string, string> = item['@odata.etag'] ? { 'If-Match': item['@odata.etag'] } : {};
    const updated = await request<Interviewer>('PUT', `/cati/interviewerproperties(${item.InterviewerId})`, {
      body: { InterviewerId: item.InterviewerId, ...toBody(draft) },
      headers,
    });
    await load();
    return updated;
  }

  async function setLocked(item: Interviewer, locked: boolean) {
    await request('GET', `/cati/interviewers(${item.InterviewerId})/Controller.${locked ? 'Lock' : 'Unlock'}()`, { change: true });
    await load();
  }

  return {
    ...list, load, goTo, search, state, sort, loggedIn, groupOptions, callCenters, surveysOf, surveysState, optionsState, loadGroupOptions, setFilter, openSurveys, loadSurveys, create, update, setLocked,
  };
});
