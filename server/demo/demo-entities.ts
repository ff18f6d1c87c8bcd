import type { Queryable } from '../db/store.ts';
import { ROOT_GROUP_ID } from '../cati/groups-service.ts';
import { SET_VARIABLE } from '../cati/history-close.ts';
import { BLACKLIST, CALL_CENTERS, FIRST_NAMES, GROUPS, LAST_NAMES, OPTOUT_DOMAINS, SURVEYS, VARIABLE_VALUES } from './demo-names.ts';
import type { Rng } from './prng.ts';

/** What the history generators need to know about the demo organisation. */
export interface DemoBase {
  callCenters: number[];
  /** Interviewer ids per call centre id. */
  interviewersByCenter: Map<number, number[]>;
  surveys: { id: string; open: boolean; sampleSize: number; variables: string[] }[];
}

const DAY = 86_400_000;

/** Call centres, groups, interviewers, surveys with variables and assignments. */
export async function createDemoOrganisation(db: Queryable, rng: Rng, now: number): Promise<DemoBase> {
  const centerIds: number[] = [];
  for (const name of CALL_CENTERS) {
    const existing = await db.value<number>('SELECT id FROM call_centers WHERE name = ?', [name]);
    centerIds.push(existing ?? (await db.value<number>('INSERT INTO call_centers (name) VALUES (?) RETURNING id', [name]))!);
  }

  const groupIds: number[] = [];
  for (const g of GROUPS) {
    const id = (await db.value<number>('INSERT INTO groups (name, description) VALUES (?, ?) RETURNING id', [g.name, g.description]))!;
    await db.run('INSERT INTO group_parents (group_id, parent_id) VALUES (?, ?)', [id, g.parent === null ? ROOT_GROUP_ID : groupIds[g.parent]!]);
    groupIds.push(id);
  }

  const surveys: DemoBase['surveys'] = [];
  for (const [i, s] of SURVEYS.entries()) {
    const id = `p${10452310 + i * 1379}`;
    const sampleSize = rng.int(20, 200) * 100;
    await db.run(`INSERT INTO surveys (id, name, sample_size, state, extended_status_group, scheduling, call_delivery_mode, call_groups)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
      id, s.name, sampleSize, s.state, rng.pick(['Default', 'Consumer', 'B2B']), rng.pick(['Standard', 'Evening priority', 'Appointments first']),
      rng.pick(['InOrder', 'Random']), rng.chance(0.3) ? 1 : 0,
    ]);
    for (const [k, v] of s.variables.entries()) {
      await db.run('INSERT INTO survey_variables (survey_id, name, available_as_cati_filter) VALUES (?, ?, ?)', [id, v, k < s.filters ? 1 : 0]);
    }
    surveys.push({ id, open: s.state === 'Open', sampleSize, variables: s.variables });
  }
  // One soft-deleted survey: history may refer to it, supervisors no longer see it.
  await db.run(`INSERT INTO surveys (id, name, sample_size, state) VALUES ('p10399999', 'Pilot test (deleted)', 50, 'SoftDeleted')`);

  const interviewersByCenter = new Map<number, number[]>(centerIds.map((c) => [c, []]));
  const logins = new Set<string>();
  const insertInterviewer = `INSERT INTO interviewers (name, display_name, description, call_center_id, location, dial_type,
    assignments_list_mode, automatic_survey_id, is_locked, locked_date, attribute1, attribute2, attribute3)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;
  const member = 'INSERT INTO interviewer_groups (interviewer_id, group_id) VALUES (?, ?) ON CONFLICT DO NOTHING';
  for (let i = 0; i < 64; i++) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    let login = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    while (logins.has(login)) login += rng.int(1, 9);
    logins.add(login);
    const center = centerIds[i < 32 ? 0 : i < 52 ? 1 : 2]!;
    const locked = i % 23 === 7;
    const auto = rng.chance(0.15) ? rng.pick(surveys.filter((s) => s.open)).id : null;
    const id = (await db.value<number>(insertInterviewer, [
      login, `${first} ${last}`, i % 9 === 0 ? 'Team leader' : null, center, `Booth ${rng.int(1, 40)}`,
      rng.weighted([['Automatic', 6], ['Manual', 2], ['Assisted', 2]] as const),
      rng.chance(0.2) ? 'AssignedCallsOnly' : 'AllCalls', auto, locked ? 1 : 0, locked ? now - rng.int(1, 20) * DAY : null,
      rng.pick(['NL', 'NL,EN', 'NL,TR', 'NL,AR', 'NL,PL', 'EN']), rng.pick(['Full time', 'Part time', 'Flex']), `EMP${1000 + i}`,
    ]))!;
    interviewersByCenter.get(center)!.push(id);
    const own = [rng.pick(groupIds.slice(0, 3)), ...(rng.chance(0.4) ? [rng.pick(groupIds.slice(3))] : [])];
    for (const g of rng.chance(0.1) ? [ROOT_GROUP_ID] : own) await db.run(member, [id, g]);
  }

  const open = surveys.filter((s) => s.open);
  const groupAssign = 'INSERT INTO group_survey_assignments (group_id, survey_id, call_center_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';
  for (const s of open) {
    for (let k = 0; k < 2; k++) await db.run(groupAssign, [rng.pick(groupIds), s.id, rng.pick(centerIds)]);
  }
  const explicit = 'INSERT INTO interviewer_survey_assignments (interviewer_id, survey_id) VALUES (?, ?) ON CONFLICT DO NOTHING';
  const callAssign = 'INSERT INTO interviewer_call_assignments (interviewer_id, survey_id, interview_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';
  const groupCall = 'INSERT INTO group_call_assignments (group_id, survey_id, call_center_id, interview_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING';
  const all = [...interviewersByCenter.values()].flat();
  for (let k = 0; k < 40; k++) await db.run(explicit, [rng.pick(all), rng.pick(open).id]);
  for (let k = 0; k < 120; k++) {
    const s = rng.pick(open);
    await db.run(callAssign, [rng.pick(all), s.id, rng.int(1, s.sampleSize)]);
  }
  for (let k = 0; k < 60; k++) {
    const s = rng.pick(open);
    await db.run(groupCall, [groupIds[3]!, s.id, centerIds[0]!, rng.int(1, s.sampleSize)]);
  }
  return { callCenters: centerIds, interviewersByCenter, surveys };
}

/** Demo answers of the first interviews of each survey (what /callhistorywithvariables shows). */
export async function createDemoVariables(db: Queryable, rng: Rng, base: DemoBase, perSurvey: number): Promise<void> {
  for (const s of base.surveys) {
    for (let interview = 1; interview <= Math.min(perSurvey, s.sampleSize); interview++) {
      for (const v of s.variables) {
        const values = VARIABLE_VALUES[v];
        await db.run(SET_VARIABLE, [s.id, interview, v, values ? rng.pick(values) : String(rng.int(0, 10))]);
      }
    }
  }
}

/** Blacklisted numbers and opt-out lists (company-level and one project) with entries. */
export async function createDemoLists(db: Queryable, rng: Rng, base: DemoBase, companyId: number, now: number): Promise<void> {
  const bl = 'INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING';
  for (const [num, type, comment] of BLACKLIST) await db.run(bl, [num, type, comment, now - rng.int(1, 300) * DAY]);

  const list = 'INSERT INTO optout_lists (company_id, project_id, created_at) VALUES (?, ?, ?) RETURNING id';
  const companyList = (await db.value<number>(list, [companyId, null, now - 200 * DAY]))!;
  const projectId = base.surveys[0]!.id;
  const projectList = (await db.value<number>(list, [companyId, projectId, now - 40 * DAY]))!;
  const domain = 'INSERT INTO optout_domains (list_id, domain, timestamp) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';
  for (const d of OPTOUT_DOMAINS) await db.run(domain, [companyList, d, now - rng.int(1, 200) * DAY]);
  const email = 'INSERT INTO optout_emails (list_id, email_address, timestamp, unsubscribed_from) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING';
  const hosts = ['gmail.com', 'outlook.com', 'ziggo.nl', 'kpnmail.nl', 'hotmail.com', 'icloud.com'];
  for (let i = 0; i < 250; i++) {
    const local = `${rng.pick(FIRST_NAMES)}.${rng.pick(LAST_NAMES)}`.toLowerCase().replace(/[^a-z.]/g, '') + (rng.chance(0.5) ? rng.int(1, 99) : '');
    const target = i % 3 === 0 ? projectList : companyList;
    await db.run(email, [target, `${local}@${rng.pick(hosts)}`, now - rng.int(0, 180 * 24) * 3_600_000, target === projectList || rng.chance(0.5) ? projectId : null]);
  }
}
