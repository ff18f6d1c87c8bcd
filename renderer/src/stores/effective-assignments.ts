/**
 * Who can really work a survey, and which surveys an interviewer can really work, with the reason: an explicit
 * assignment, or a group assignment (a group's assignment reaches the members of its subgroups too, docs/cati-api.md#semantics).
 */
import { request } from '../api/client.ts';
import { odataString, type ODataCollection } from '../api/odata.ts';
import { OPTIONS_LIMIT, type Group, type GroupMember, type SurveyAssignment } from './groups.ts';
import { fetchLoggedInIds } from './logged-in.ts';
import type { ResourceAssignment } from './surveys.ts';

/** One interviewer who can work a survey: how (explicitly, through which group), and whether logged in now. */
export interface SurveyWorker {
  InterviewerId: number;
  Name: string;
  DisplayName: string | null;
  how: string[];
  loggedIn: boolean;
}

/** One survey an interviewer can work, and how. */
export interface InterviewerSurvey {
  SurveyId: string;
  how: string[];
  AssignedCallsCount: number;
}

type GroupTree = Pick<Group, 'GroupId' | 'Name' | 'ParentGroups'>[];

async function fetchGroupTree(): Promise<GroupTree> {
  const page = await request<ODataCollection<Group>>('GET', '/cati/groups', { query: { $select: 'GroupId,Name,ParentGroups', $top: OPTIONS_LIMIT } });
  return page.value;
}

/** A group and every group below it (bounded by the tree's size, cycles ignored). */
function withDescendants(tree: GroupTree, root: number): number[] {
  const found = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const g of tree) {
      if (found.has(g.GroupId) || !g.ParentGroups.some((p) => found.has(p))) continue;
      found.add(g.GroupId);
      grew = true;
    }
  }
  return [...found];
}

/** A group and every group above it. */
function withAncestors(tree: GroupTree, start: number[]): number[] {
  const found = new Set(start);
  const queue = [...start];
  while (queue.length) {
    const id = queue.shift();
    const parents = tree.find((g) => g.GroupId === id)?.ParentGroups ?? [];
    for (const p of parents.filter((x) => !found.has(x))) {
      found.add(p);
      queue.push(p);
    }
  }
  return [...found];
}

/** Interviewers of a survey in one call centre: the explicitly assigned ones and the members (subgroups included) of assigned groups. */
export async function fetchSurveyWorkers(callCenterId: number, resources: ResourceAssignment[]): Promise<SurveyWorker[]> {
  const [tree, loggedIn] = await Promise.all([fetchGroupTree(), fetchLoggedInIds()]);
  const workers = new Map<number, SurveyWorker>();
  const add = (m: Pick<GroupMember, 'InterviewerId' | 'Name' | 'DisplayName'>, how: string) => {
    const w = workers.get(m.InterviewerId) ?? { ...m, how: [], loggedIn: loggedIn.has(m.InterviewerId) };
    if (!w.how.includes(how)) w.how.push(how);
    workers.set(m.InterviewerId, w);
  };
  const groupName = (id: number) => tree.find((g) => g.GroupId === id)?.Name ?? `#${id}`;
  const members = new Map<number, Promise<GroupMember[]>>();
  const membersOf = (id: number) => {
    if (!members.has(id)) {
      const path = `/cati/groups(${id})/Controller.GetInterviewers(callCenterId=${callCenterId})`;
      members.set(id, request<ODataCollection<GroupMember>>('GET', path, { query: { $select: 'InterviewerId,Name,DisplayName', $top: 10000 } }).then((p) => p.value));
    }
    return members.get(id)!;
  };
  const explicit = resources.filter((r) => !r.IsGroup);
  if (explicit.length) {
    const ids = explicit.map((r) => r.ResourceId).join(',');
    const page = await request<ODataCollection<GroupMember>>('GET', '/cati/interviewers', {
      query: { $filter: `InterviewerId in (${ids})`, $select: 'InterviewerId,Name,DisplayName', $top: 10000 },
    });
    for (const i of page.value) add(i, 'Explicit');
  }
  for (const r of resources.filter((x) => x.IsGroup)) {
    for (const sub of withDescendants(tree, r.ResourceId)) {
      const how = sub === r.ResourceId ? `Group ${r.Name}` : `Group ${r.Name} (through ${groupName(sub)})`;
      for (const m of await membersOf(sub)) add(m, how);
    }
  }
  return [...workers.values()].sort((a, b) => a.Name.localeCompare(b.Name));
}

/** The surveys an interviewer can work, with how: explicit, by calls, or through which of its groups (or their parents). */
export async function fetchInterviewerSurveys(interviewerId: number, callCenterId: number): Promise<InterviewerSurvey[]> {
  const base = `/cati/interviewers(${interviewerId})/Controller`;
  const [rows, direct, tree] = await Promise.all([
    request<ODataCollection<SurveyAssignment>>('GET', `${base}.GetAssignments()`),
    request<ODataCollection<Pick<Group, 'GroupId'>>>('GET', `${base}.GetGroups()`, { query: { $select: 'GroupId', $top: OPTIONS_LIMIT } }),
    fetchGroupTree(),
  ]);
  const reach = new Map<string, string[]>(); // survey → groups whose own assignment reaches this interviewer
  for (const g of withAncestors(tree, direct.value.map((x) => x.GroupId))) {
    const page = await request<ODataCollection<SurveyAssignment>>('GET', `/cati/groups(${g})/Controller.GetAssignments(callCenterId=${callCenterId})`, {
      query: { $filter: `AssignmentType eq ${odataString('Explicit')}` },
    });
    const name = tree.find((t) => t.GroupId === g)?.Name ?? `#${g}`;
    for (const a of page.value) reach.set(a.SurveyId, [...(reach.get(a.SurveyId) ?? []), name]);
  }
  const out = new Map<string, InterviewerSurvey>();
  for (const r of rows.value) {
    const s = out.get(r.SurveyId) ?? { SurveyId: r.SurveyId, how: [], AssignedCallsCount: 0 };
    if (r.AssignmentType === 'Explicit') s.how.push('Explicit');
    else if (r.AssignmentType === 'ImplicitToSurveyCalls') s.how.push(`Assigned calls (${r.AssignedCallsCount})`);
    else s.how.push(...(reach.get(r.SurveyId)?.map((n) => `Group ${n}`) ?? ['Through a group']));
    s.AssignedCallsCount = Math.max(s.AssignedCallsCount, r.AssignedCallsCount);
    out.set(r.SurveyId, s);
  }
  return [...out.values()].sort((a, b) => a.SurveyId.localeCompare(b.SurveyId));
}
