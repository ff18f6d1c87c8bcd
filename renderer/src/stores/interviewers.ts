import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';
import { fetchGroupOptions, OPTIONS_LIMIT, type Group } from './groups.ts';
import { usePagedCollection } from './paged-collection.ts';

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

/** The interviewers screen: one page with search, lock/unlock, create and edit (with group membership). */
export const useInterviewersStore = defineStore('interviewers', () => {
  const search = ref('');
  const filter = () => {
    const s = search.value.trim().toLowerCase();
    return s ? `contains(tolower(Name),${odataString(s)}) or contains(tolower(DisplayName),${odataString(s)})` : undefined;
  };
  const list = usePagedCollection<Interviewer>('/cati/interviewers', { filter, orderby: 'Name' });
  const { load } = list;
  /** The groups the form offers, by name. */
  const groupOptions = ref<Pick<Group, 'GroupId' | 'Name'>[]>([]);

  async function loadGroupOptions() {
    groupOptions.value = await fetchGroupOptions();
  }

  async function setSearch(text: string) {
    search.value = text;
    await load(0);
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
    await request('GET', `/cati/interviewers(${item.InterviewerId})/Controller.${locked ? 'Lock' : 'Unlock'}()`);
    await load();
  }

  return { ...list, search, groupOptions, loadGroupOptions, setSearch, create, update, setLocked };
});
