import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { request } from '../api/client.ts';
import { odataString, type ODataCollection, type WithEtag } from '../api/odata.ts';

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
}

/** An empty form, or one filled from an existing interviewer. */
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
  return body;
}

/** The interviewers screen's data: one page with search, lock/unlock, create and edit. */
export const useInterviewersStore = defineStore('interviewers', () => {
  const items = ref<Interviewer[]>([]);
  const total = ref(0);
  const search = ref('');
  const skip = ref(0);
  const pageSize = ref(50);
  const loading = ref(false);

  const filter = computed(() => {
    const s = search.value.trim().toLowerCase();
    return s ? `contains(tolower(Name),${odataString(s)}) or contains(tolower(DisplayName),${odataString(s)})` : undefined;
  });

  async function load() {
    loading.value = true;
    try {
      const page = await request<ODataCollection<Interviewer>>('GET', '/cati/interviewers', {
        query: { $filter: filter.value, $orderby: 'Name', $top: pageSize.value, $skip: skip.value, $count: true },
      });
      items.value = page.value;
      total.value = page['@odata.count'] ?? page.value.length;
    } finally {
      loading.value = false;
    }
  }

  async function setSearch(text: string) {
    search.value = text;
    skip.value = 0;
    await load();
  }

  async function goTo(offset: number) {
    skip.value = Math.max(0, offset);
    await load();
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

  return { items, total, search, skip, pageSize, loading, load, setSearch, goTo, create, update, setLocked };
});
