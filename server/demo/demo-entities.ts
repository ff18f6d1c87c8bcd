import type { Db } from '../db/open.ts';
import { ROOT_GROUP_ID } from '../cati/groups-service.ts';
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
export function createDemoOrganisation(db: Db, rng: Rng, now: number): DemoBase {
  const centerIds = CALL_CENTERS.map((name) => {
    const existing = db.prepare('SELECT id FROM call_centers WHERE name = ?').pluck().get(name) as number | undefined;
    return existing ?? Number(db.prepare('INSERT INTO call_centers (name) VALUES (?)').run(name).lastInsertRowid);
  });

  const groupIds: number[] = [];
  for (const g of GROUPS) {
    const id = Number(db.prepare('INSERT INTO groups (name, description) VALUES (?, ?)').run(g.name, g.description).lastInsertRowid);
    db.prepare('INSERT INTO group_parents (group_id, parent_id) VALUES (?, ?)').run(id, g.parent === null ? ROOT_GROUP_ID : groupIds[g.parent]!);
    groupIds.push(id);
  }

  const surveys = SURVEYS.map((s, i) => {
    const id = `p${10452310 + i * 1379}`;
    const sampleSize = rng.int(20, 200) * 100;
    db.prepare(`INSERT INTO surveys (id, name, sample_size, state, extended_status_group, scheduling, call_delivery_mode, call_groups)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
      id, s.name, sampleSize, s.state, rng.pick(['Default', 'Consumer', 'B2B']), rng.pick(['Standard', 'Evening priority', 'Appointments first']),
      rng.pick(['InOrder', 'Random']), rng.chance(0.3) ? 1 : 0,
    );
    s.variables.forEach((v, k) => {
      db.prepare('INSERT INTO survey_variables (survey_id, name, available_as_cati_filter) VALUES (?, ?, ?)').run(id, v, k < s.filters ? 1 : 0);
    });
    return { id, open: s.state === 'Open', sampleSize, variables: s.variables };
  });
  // One soft-deleted survey: history may refer to it, supervisors no longer see it.
  db.prepare(`INSERT INTO surveys (id, name, sample_size, state) VALUES ('p10399999', 'Pilot test (deleted)', 50, 'SoftDeleted')`).run();

  const interviewersByCenter = new Map<number, number[]>(centerIds.map((c) => [c, []]));
  const logins = new Set<string>();
  const insertInterviewer = db.prepare(`INSERT INTO interviewers (name, display_name, description, call_center_id, location, dial_type,
    assignments_list_mode, automatic_survey_id, is_locked, locked_date, attribute1, attribute2, attribute3)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const member = db.prepare('INSERT OR IGNORE INTO interviewer_groups (interviewer_id, group_id) VALUES (?, ?)');
  for (let i = 0; i < 64; i++) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    let login = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    while (logins.has(login)) login += rng.int(1, 9);
    logins.add(login);
    const center = centerIds[i < 32 ? 0 : i < 52 ? 1 : 2]!;
    const locked = i % 23 === 7;
    const auto = rng.chance(0.15) ? rng.pick(surveys.filter((s) => s.open)).id : null;
    const id = Number(insertInterviewer.run(
      login, `${first} ${last}`, i % 9 === 0 ? 'Team leader' : null, center, `Booth ${rng.int(1, 40)}`,
      rng.weighted([['Automatic', 6], ['Manual', 2], ['Assisted', 2]] as const),
      rng.chance(0.2) ? 'AssignedCallsOnly' : 'AllCalls', auto, locked ? 1 : 0, locked ? now - rng.int(1, 20) * DAY : null,
      rng.pick(['NL', 'NL,EN', 'NL,TR', 'NL,AR', 'NL,PL', 'EN']), rng.pick(['Full time', 'Part time', 'Flex']), `EMP${1000 + i}`,
    ).lastInsertRowid);
    interviewersByCenter.get(center)!.push(id);
    const own = [rng.pick(groupIds.slice(0, 3)), ...(rng.chance(0.4) ? [rng.pick(groupIds.slice(3))] : [])];
    for (const g of rng.chance(0.1) ? [ROOT_GROUP_ID] : own) member.run(id, g);
  }

  const open = surveys.filter((s) => s.open);
  const groupAssign = db.prepare('INSERT OR IGNORE INTO group_survey_assignments (group_id, survey_id, call_center_id) VALUES (?, ?, ?)');
  for (const s of open) {
    for (let k = 0; k < 2; k++) groupAssign.run(rng.pick(groupIds), s.id, rng.pick(centerIds));
  }
  const explicit = db.prepare('INSERT OR IGNORE INTO interviewer_survey_assignments (interviewer_id, survey_id) VALUES (?, ?)');
  const callAssign = db.prepare('INSERT OR IGNORE INTO interviewer_call_assignments (interviewer_id, survey_id, interview_id) VALUES (?, ?, ?)');
  const groupCall = db.prepare('INSERT OR IGNORE INTO group_call_assignments (group_id, survey_id, call_center_id, interview_id) VALUES (?, ?, ?, ?)');
  const all = [...interviewersByCenter.values()].flat();
  for (let k = 0; k < 40; k++) explicit.run(rng.pick(all), rng.pick(open).id);
  for (let k = 0; k < 120; k++) {
    const s = rng.pick(open);
    callAssign.run(rng.pick(all), s.id, rng.int(1, s.sampleSize));
  }
  for (let k = 0; k < 60; k++) {
    const s = rng.pick(open);
    groupCall.run(groupIds[3]!, s.id, centerIds[0]!, rng.int(1, s.sampleSize));
  }
  return { callCenters: centerIds, interviewersByCenter, surveys };
}

/** Demo answers of the first interviews of each survey (what /callhistorywithvariables shows). */
export function createDemoVariables(db: Db, rng: Rng, base: DemoBase, perSurvey: number): void {
  const ins = db.prepare('INSERT OR REPLACE INTO interview_variables (survey_id, interview_id, name, value) VALUES (?, ?, ?, ?)');
  for (const s of base.surveys) {
    for (let interview = 1; interview <= Math.min(perSurvey, s.sampleSize); interview++) {
      for (const v of s.variables) {
        const values = VARIABLE_VALUES[v];
        ins.run(s.id, interview, v, values ? rng.pick(values) : String(rng.int(0, 10)));
      }
    }
  }
}

/** Blacklisted numbers and opt-out lists (company-level and one project) with entries. */
export function createDemoLists(db: Db, rng: Rng, base: DemoBase, companyId: number, now: number): void {
  const bl = db.prepare('INSERT OR IGNORE INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?)');
  for (const [num, type, comment] of BLACKLIST) bl.run(num, type, comment, now - rng.int(1, 300) * DAY);

  const list = db.prepare('INSERT INTO optout_lists (company_id, project_id, created_at) VALUES (?, ?, ?)');
  const companyList = Number(list.run(companyId, null, now - 200 * DAY).lastInsertRowid);
  const projectId = base.surveys[0]!.id;
  const projectList = Number(list.run(companyId, projectId, now - 40 * DAY).lastInsertRowid);
  const domain = db.prepare('INSERT OR IGNORE INTO optout_domains (list_id, domain, timestamp) VALUES (?, ?, ?)');
  for (const d of OPTOUT_DOMAINS) domain.run(companyList, d, now - rng.int(1, 200) * DAY);
  const email = db.prepare('INSERT OR IGNORE INTO optout_emails (list_id, email_address, timestamp, unsubscribed_from) VALUES (?, ?, ?, ?)');
  const hosts = ['gmail.com', 'outlook.com', 'ziggo.nl', 'kpnmail.nl', 'hotmail.com', 'icloud.com'];
  for (let i = 0; i < 250; i++) {
    const local = `${rng.pick(FIRST_NAMES)}.${rng.pick(LAST_NAMES)}`.toLowerCase().replace(/[^a-z.]/g, '') + (rng.chance(0.5) ? rng.int(1, 99) : '');
    const target = i % 3 === 0 ? projectList : companyList;
    email.run(target, `${local}@${rng.pick(hosts)}`, now - rng.int(0, 180 * 24) * 3_600_000, target === projectList || rng.chance(0.5) ? projectId : null);
  }
}
