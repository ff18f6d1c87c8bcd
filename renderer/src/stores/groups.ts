import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';
import { useAddressQuery } from '../composables/address-query.ts';
import { useTableSort } from '../composables/table-sort.ts';
import { usePagedCollection } from './paged-collection.ts';
import { quietly, useResourceState } from './resource-state.ts';

export interface Group extends WithEtag {
  GroupId: number;
  Name: string;
  Description: string | null;
  ParentGroups: number[];
}

export interface GroupDraft {
  Name: string;
  Description: string;
  ParentGroups: number[];
}

export interface CallCenter {
  CallCenterId: number;
  Name: string;
}

/** A group member as the members table shows it (`Controller.GetInterviewers`). */
export interface GroupMember {
  InterviewerId: number;
  Name: string;
  DisplayName: string | null;
  IsLocked: boolean;
}

export type AssignmentType = 'Explicit' | 'Implicit' | 'ImplicitToSurveyCalls';

/** One row of a group's `Controller.GetAssignments(callCenterId)`. */
export interface SurveyAssignment {
  SurveyId: string;
  AssignmentType: AssignmentType;
  AssignedCallsCount: number;
}

/** Groups the picker lists at most (the parent-group and survey-assignment pickers). */
export const OPTIONS_LIMIT = 1000;

/** An empty form, or one filled from an existing group. */
export function groupDraftOf(g?: Group): GroupDraft {
  return { Name: g?.Name ?? '', Description: g?.Description ?? '', ParentGroups: [...(g?.ParentGroups ?? [])] };
}

const toBody = (d: GroupDraft) => ({ Name: d.Name.trim(), Description: d.Description.trim() || null, ParentGroups: d.ParentGroups });
const ifMatch = (g: WithEtag): Record<string, string> => (g['@odata.etag'] ? { 'If-Match': g['@odata.etag'] } : {});

/** Every call centre (few: one per site), for the call-centre pickers of the Groups and Surveys screens. */
export async function fetchCallCenters(): Promise<CallCenter[]> {
  const page = await request<ODataCollection<CallCenter>>('GET', '/cati/callcenters', { query: { $orderby: 'CallCenterId', $top: OPTIONS_LIMIT } });
  return page.value;
}

/** Group ids and names for pickers, by name. */
export async function fetchGroupOptions(): Promise<Pick<Group, 'GroupId' | 'Name'>[]> {
  const page = await request<ODataCollection<Group>>('GET', '/cati/groups', { query: { $select: 'GroupId,Name', $orderby: 'Name', $top: OPTIONS_LIMIT } });
  return page.value;
}

export interface InterviewerOption {
  InterviewerId: number;
  Name: string;
  DisplayName: string | null;
}

/** Interviewer ids, logins and display names for pickers (assign to a survey, history filter), by login. */
export async function fetchInterviewerOptions(): Promise<InterviewerOption[]> {
  const page = await request<ODataCollection<InterviewerOption>>('GET', '/cati/interviewers', {
    query: { $select: 'InterviewerId,Name,DisplayName', $orderby: 'Name', $top: OPTIONS_LIMIT },
  });
  return page.value;
}

/** The Groups screen: one page of groups (search by name), CRUD, and the selected group's members and assignments. */
export const useGroupsStore = defineStore('groups', () => {
  const search = ref('');
  const filter = () => {
    const s = search.value.trim().toLowerCase();
    return s ? `contains(tolower(Name),${odataString(s)})` : undefined;
  };
  const sort = useTableSort('Name', false, 'GroupId');
  const list = usePagedCollection<Group>('/cati/groups', { filter, sort });
  const options = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);
  const callCenters = ref<CallCenter[]>([]);

  const selected = ref<Group | null>(null);
  const callCenterId = ref(1);
  const members = ref<GroupMember[]>([]);
  const assignments = ref<SurveyAssignment[]>([]);
  /** The selected group's members and assignments: loading / empty / failed / offline (docs/screens.md#truth). */
  const detail = useResourceState();
  /** The group names of the form's parent choices: "Loading…" until they arrived, never "No other groups". */
  const optionsState = useResourceState();
  /** A group asked for by the address (`#/groups?group=7`) that is being opened. */
  const wantedGroup = ref<number | null>(null);

  const nameOf = (id: number) => options.value.find((g) => g.GroupId === id)?.Name ?? `#${id}`;

  /** Loads the page at `offset` together with the group names its parent column and the form show. */
  async function load(offset?: number) {
    const names = optionsState.track(fetchGroupOptions, () => false);
    if (!(await list.load(offset, names))) return;
    options.value = await names;
    if (selected.value) selected.value = list.items.value.find((g) => g.GroupId === selected.value?.GroupId) ?? selected.value;
  }

  async function goTo(offset: number) {
    await load(Math.max(0, offset));
  }

  async function loadCallCenters() {
    callCenters.value = await fetchCallCenters();
  }

  async function setSearch(text: string) {
    search.value = text;
    await load(0);
  }

  async function create(draft: GroupDraft): Promise<Group> {
    const created = await request<Group>('POST', '/cati/groups', { body: toBody(draft) });
    await load();
    return created;
  }

  async function update(group: Group, draft: GroupDraft): Promise<Group> {
    const updated = await request<Group>('PUT', `/cati/groups(${group.GroupId})`, {
      body: { GroupId: group.GroupId, ...toBody(draft) },
      headers: ifMatch(group),
    });
    if (selected.value?.GroupId === group.GroupId) selected.value = updated;
    await load();
    return updated;
  }

  async function remove(group: Group) {
    await request<void>('DELETE', `/cati/groups(${group.GroupId})`, { headers: ifMatch(group) });
    if (selected.value?.GroupId === group.GroupId) select(null);
    await load();
  }

  function select(group: Group | null) {
    selected.value = group;
    members.value = [];
    assignments.value = [];
    detail.reset();
  }

  /** Members and survey assignments of the selected group in the chosen call centre. */
  async function loadDetail() {
    const g = selected.value;
    if (!g) return;
    const base = `/cati/groups(${g.GroupId})/Controller`;
    const centre = callCenterId.value;
    await detail.track(async () => {
      const [m, a] = await Promise.all([
        request<ODataCollection<GroupMember>>('GET', `${base}.GetInterviewers(callCenterId=${centre})`, {
          query: { $select: 'InterviewerId,Name,DisplayName,IsLocked', $orderby: 'Name', $top: OPTIONS_LIMIT },
        }),
        request<ODataCollection<SurveyAssignment>>('GET', `${base}.GetAssignments(callCenterId=${centre})`),
      ]);
      // Another group or call centre was chosen meanwhile: that choice's answer is the one to show, whichever comes last.
      if (selected.value?.GroupId !== g.GroupId || callCenterId.value !== centre) return;
      members.value = m.value;
      assignments.value = a.value;
    }, () => members.value.length === 0 && assignments.value.length === 0);
  }

  /** Opens a group in the detail panel; call centres are refreshed with it (they are added through the API). */
  async function open(group: Group) {
    select(group);
    await Promise.all([loadDetail(), loadCallCenters()]);
  }

  /** Opens the group of an address (`#/groups?group=7`): read by id, then opened; '' closes the detail. */
  function openFromAddress(value: string) {
    const id = Number(value);
    if (!value || !Number.isInteger(id) || id <= 0) {
      wantedGroup.value = null;
      select(null);
      return;
    }
    wantedGroup.value = id;
    void quietly(async () => {
      try {
        const group = await request<Group>('GET', `/cati/groups(${id})`);
        if (wantedGroup.value === id) await open(group);
      } finally {
        if (wantedGroup.value === id) wantedGroup.value = null;
      }
    });
  }

  // The search, the sort and the opened group live in the address, so a reload or a shared link opens the same.
  useAddressQuery(
    'groups',
    {
      q: { get: () => search.value, set: (v) => (search.value = v) },
      orderby: sort.field,
      group: { get: () => String(wantedGroup.value ?? selected.value?.GroupId ?? ''), set: openFromAddress },
    },
    () => load(0),
  );

  async function setCallCenter(id: number) {
    callCenterId.value = id;
    await loadDetail();
  }

  async function assignSurvey(surveyId: string) {
    await surveyOperation('AssignOnSurvey', surveyId);
  }

  async function deAssignSurvey(surveyId: string) {
    await surveyOperation('DeAssignFromSurvey', surveyId);
  }

  async function surveyOperation(name: 'AssignOnSurvey' | 'DeAssignFromSurvey', surveyId: string) {
    const g = selected.value;
    if (!g) return;
    await request('GET', `/cati/groups(${g.GroupId})/Controller.${name}(surveyId=${odataString(surveyId)},callCenterId=${callCenterId.value})`, { change: true });
    await loadDetail();
  }

  return {
    ...list, search, sort, options, optionsState, callCenters, selected, callCenterId, members, assignments, detail,
    nameOf, load, goTo, loadCallCenters, setSearch, create, update, remove, select, open, loadDetail, setCallCenter,
    assignSurvey, deAssignSurvey,
  };
});
