import { scryptSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import {
  groupAssignOnCall, groupAssignOnSurvey, groupAssignments, groupMemberIds, interviewerAssignments, interviewerAssignOnCall,
  interviewerAssignOnSurvey, interviewerCleanAssignments, interviewerDeAssignFromSurvey, surveyAssignments,
} from '../../server/cati/assignments-service.ts';
import { createGroup, deleteGroup, getGroup, updateGroup } from '../../server/cati/groups-service.ts';
import { closeSession } from '../../server/cati/history-close.ts';
import { ingestHistory } from '../../server/cati/history-ingest.ts';
import { createInterviewer, deleteInterviewer, lockInterviewer, updateInterviewer } from '../../server/cati/interviewers-service.ts';
import { verifyPassword } from '../../server/auth/passwords.ts';
import { createSurvey, getBasicProperties, updateSurvey } from '../../server/cati/surveys-service.ts';
import { parseIsoTime } from '../../server/lib/time.ts';

let dir: string;
let store: SqliteStore;
let db: Db; // the connection behind the store, for assertions and the history modules
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cati-unit-'));
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
  db = store.db;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const asyncStatus = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
  } catch (e) {
    return { status: (e as { status?: number }).status, message: (e as Error).message, details: (e as { details?: unknown }).details };
  }
  return { status: 0, message: '' };
};

describe('migration 003', () => {
  it('creates the default call centre 1 "Main" and the root group "CATI Interviewers"', () => {
    expect(db.prepare('SELECT name FROM call_centers WHERE id = 1').pluck().get()).toBe('Main');
    expect(db.prepare('SELECT name FROM groups WHERE id = 1').pluck().get()).toBe('CATI Interviewers');
  });

  it('serves a one-day call range from the time index', () => {
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM calls WHERE time >= 1 AND time < 2 ORDER BY id LIMIT 100').all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/INDEX calls_time/);
  });
});

describe('groups service', () => {
  it('rejects a duplicate name with 409 naming the existing id', async () => {
    const id = await createGroup(store, { Name: 'Evening' });
    const e = await asyncStatus(() => createGroup(store, { Name: 'Evening' }));
    expect(e.status).toBe(409);
    expect(e.details).toEqual([{ code: 'ExistingId', target: 'Id', message: String(id) }]);
  });

  it('rejects unknown parents and cycles with 400', async () => {
    const a = await createGroup(store, { Name: 'A' });
    const b = await createGroup(store, { Name: 'B', ParentGroups: [a] });
    const c = await createGroup(store, { Name: 'C', ParentGroups: [b] });
    expect(await asyncStatus(() => createGroup(store, { Name: 'D', ParentGroups: [999] }))).toMatchObject({ status: 400, message: expect.stringContaining('999') });
    expect(await asyncStatus(() => updateGroup(store, a, { ParentGroups: [c] }))).toMatchObject({ status: 400, message: expect.stringContaining('cycle') });
    expect(await asyncStatus(() => updateGroup(store, a, { ParentGroups: [a] }))).toMatchObject({ status: 400 });
    expect((await getGroup(store, a)).ParentGroups).toEqual([]);
  });

  it('keeps fields left out of an update and bumps the version', async () => {
    const id = await createGroup(store, { Name: 'Day', Description: 'Weekdays', ParentGroups: [1] });
    await updateGroup(store, id, { Name: 'Day shift' });
    expect(await getGroup(store, id)).toMatchObject({ Name: 'Day shift', Description: 'Weekdays', ParentGroups: [1], version: 2 });
    expect(await asyncStatus(() => updateGroup(store, id, { Name: 'x' }, 'W/"1"'))).toMatchObject({ status: 412 });
  });

  it('deleting a group keeps its interviewers (an interviewer left without a group returns to the root group)', async () => {
    const g = await createGroup(store, { Name: 'Temp' });
    const i = await createInterviewer(store, { Name: 'anna', ParentGroups: [g] });
    await deleteGroup(store, g);
    expect(db.prepare('SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?').pluck().all(i)).toEqual([1]);
    expect(await asyncStatus(() => deleteGroup(store, 1))).toMatchObject({ status: 400 });
  });
});

describe('interviewers service', () => {
  it('stores a salted scrypt hash and sets PwdSetDate only when a password is given', async () => {
    const a = await createInterviewer(store, { Name: 'a', Password: 'secret-1' });
    const b = await createInterviewer(store, { Name: 'b', Password: 'secret-1' });
    const rows = db.prepare('SELECT password_hash, pwd_set_date FROM interviewers WHERE id IN (?, ?)').all(a, b) as { password_hash: string; pwd_set_date: number }[];
    expect(rows[0]!.password_hash).not.toBe(rows[1]!.password_hash);
    expect(rows[0]!.password_hash).not.toContain('secret-1');
    expect(await verifyPassword('secret-1', rows[0]!.password_hash)).toBe(true);
    expect(await verifyPassword('wrong', rows[0]!.password_hash)).toBe(false);
    expect(rows[0]!.pwd_set_date).toBeGreaterThan(0);
    await updateInterviewer(store, a, { DisplayName: 'A' });
    expect(db.prepare('SELECT password_hash FROM interviewers WHERE id = ?').pluck().get(a)).toBe(rows[0]!.password_hash);
  });

  it("hashes at the interviewer cost (p=1) and still reads hashes stored in base64 ('+', '/', '=') before", async () => {
    const id = await createInterviewer(store, { Name: 'c', Password: 'secret-2' });
    expect(db.prepare('SELECT password_hash FROM interviewers WHERE id = ?').pluck().get(id)).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    const salt = Buffer.from('fbefbe' + '00'.repeat(13), 'hex'); // base64 '++++AAAA…=='
    const key = scryptSync('secret-2', salt, 32, { N: 16384, r: 8, p: 1 });
    const stored = `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(stored).toMatch(/[+/=]/);
    expect(await verifyPassword('secret-2', stored)).toBe(true);
    expect(await verifyPassword('secret-3', stored)).toBe(false);
  });

  it('puts an interviewer without ParentGroups into the root group; PUT without ParentGroups keeps them', async () => {
    const g = await createGroup(store, { Name: 'G' });
    const id = await createInterviewer(store, { Name: 'x' });
    expect(db.prepare('SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?').pluck().all(id)).toEqual([1]);
    await updateInterviewer(store, id, { ParentGroups: [g] });
    await updateInterviewer(store, id, { Location: 'Booth 3' });
    expect(db.prepare('SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?').pluck().all(id)).toEqual([g]);
  });

  it('refuses a duplicate name (409), an unknown call centre (400) and a body id that differs from the key (400)', async () => {
    const id = await createInterviewer(store, { Name: 'dup' });
    expect(await asyncStatus(() => createInterviewer(store, { Name: 'dup' }))).toMatchObject({ status: 409 });
    expect(await asyncStatus(() => createInterviewer(store, { Name: 'n', CallCenterId: 7 }))).toMatchObject({ status: 400 });
    expect(await asyncStatus(() => updateInterviewer(store, id, { InterviewerId: id + 1 }))).toMatchObject({ status: 400 });
    expect(await asyncStatus(() => createInterviewer(store, { Name: 'n', Foo: 1 }))).toMatchObject({ status: 400, message: expect.stringContaining("'Foo'") });
  });

  it('Lock keeps the first LockedDate; Unlock clears both', async () => {
    const id = await createInterviewer(store, { Name: 'l' });
    await lockInterviewer(store, id, true);
    const first = db.prepare('SELECT locked_date FROM interviewers WHERE id = ?').pluck().get(id) as number;
    db.prepare('UPDATE interviewers SET locked_date = locked_date - 5000 WHERE id = ?').run(id);
    await lockInterviewer(store, id, true);
    expect(db.prepare('SELECT locked_date FROM interviewers WHERE id = ?').pluck().get(id)).toBe(first - 5000);
    await lockInterviewer(store, id, false);
    expect(db.prepare('SELECT is_locked, locked_date FROM interviewers WHERE id = ?').get(id)).toEqual({ is_locked: 0, locked_date: null });
  });
});

describe('assignment rules', () => {
  let s: string;
  let g: number;
  let i: number;
  beforeEach(async () => {
    s = await createSurvey(store, { SurveyId: 'p100', SurveyName: 'S', State: 'Open' });
    g = await createGroup(store, { Name: 'G' });
    i = await createInterviewer(store, { Name: 'i', ParentGroups: [g] });
  });

  it('an interviewer assigned explicitly and through a group has two rows; DeAssignFromSurvey removes only the explicit one', async () => {
    await interviewerAssignOnSurvey(store, i, s);
    await groupAssignOnSurvey(store, g, s, 1);
    expect(await interviewerAssignments(store, i)).toEqual([
      { SurveyId: s, AssignmentType: 'Explicit', AssignedCallsCount: 0 },
      { SurveyId: s, AssignmentType: 'Implicit', AssignedCallsCount: 0 },
    ]);
    await interviewerDeAssignFromSurvey(store, i, s);
    await interviewerDeAssignFromSurvey(store, i, s); // idempotent
    expect((await interviewerAssignments(store, i)).map((r) => r.AssignmentType)).toEqual(['Implicit']);
  });

  it('a group assignment in another call centre does not reach the interviewer', async () => {
    db.prepare("INSERT INTO call_centers (id, name) VALUES (2, 'Other')").run();
    await groupAssignOnSurvey(store, g, s, 2);
    expect(await interviewerAssignments(store, i)).toEqual([]);
    expect(await groupAssignments(store, g, 2)).toEqual([{ SurveyId: s, AssignmentType: 'Explicit', AssignedCallsCount: 0 }]);
  });

  it('an assignment of a parent group is Implicit for the child group and its members', async () => {
    const child = await createGroup(store, { Name: 'Child', ParentGroups: [g] });
    await groupAssignOnSurvey(store, g, s, 1);
    expect(await groupAssignments(store, child, 1)).toEqual([{ SurveyId: s, AssignmentType: 'Implicit', AssignedCallsCount: 0 }]);
  });

  it('call assignments make ImplicitToSurveyCalls appear with a computed count', async () => {
    await interviewerAssignOnCall(store, i, s, 11);
    await interviewerAssignOnCall(store, i, s, 11);
    await groupAssignOnCall(store, g, s, 12, 1);
    expect(await interviewerAssignments(store, i)).toEqual([{ SurveyId: s, AssignmentType: 'ImplicitToSurveyCalls', AssignedCallsCount: 2 }]);
    expect(await surveyAssignments(store, s, 1)).toEqual([
      { ResourceId: i, Name: 'i', IsGroup: false, AssignedCallsCount: 1 },
      { ResourceId: g, Name: 'G', IsGroup: true, AssignedCallsCount: 1 },
    ]);
  });

  it('CleanAssignments removes the interviewer\'s own assignments; deleting the interviewer removes the rest', async () => {
    await interviewerAssignOnSurvey(store, i, s);
    await interviewerAssignOnCall(store, i, s, 1);
    await interviewerCleanAssignments(store, i);
    expect(await interviewerAssignments(store, i)).toEqual([]);
    await interviewerAssignOnSurvey(store, i, s);
    const { assignments } = await deleteInterviewer(store, i);
    expect(assignments).toEqual([{ SurveyId: s, ResourceId: i, IsGroup: false, CallCenterId: 1, InterviewId: null }]);
    expect(db.prepare('SELECT COUNT(*) FROM interviewer_survey_assignments').pluck().get()).toBe(0);
    expect(await groupMemberIds(store, g, 1)).toEqual([]);
  });

  it('unknown or SoftDeleted surveys, unknown groups, interviewers and call centres are 404', async () => {
    await updateSurvey(store, s, { State: 'SoftDeleted' });
    expect(await asyncStatus(() => interviewerAssignOnSurvey(store, i, s))).toMatchObject({ status: 404 });
    expect(await asyncStatus(() => getBasicProperties(store, s))).toMatchObject({ status: 404 });
    expect(await asyncStatus(() => interviewerAssignOnSurvey(store, i, 'p999'))).toMatchObject({ status: 404 });
    expect(await asyncStatus(() => groupAssignments(store, 999, 1))).toMatchObject({ status: 404 });
    expect(await asyncStatus(() => groupAssignments(store, g, 999))).toMatchObject({ status: 404 });
    expect(await asyncStatus(() => interviewerAssignments(store, 999))).toMatchObject({ status: 404 });
  });
});

describe('history ingest', () => {
  beforeEach(async () => {
    await createSurvey(store, { SurveyId: 'p1', SurveyName: 'S', Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }] });
    await createInterviewer(store, { Name: 'i' });
  });
  const call = (extra: Record<string, unknown> = {}) => ({ Time: '2026-11-02T10:00:00+01:00', SurveyId: 'p1', TelephoneNumber: '31201234567', InterviewerId: 1, ...extra });

  it('stores a batch in order and answers the ids; times with an offset are stored as UTC epoch ms', async () => {
    const ids = await ingestHistory(store, 'callhistory', { value: [call(), call({ InterviewId: 5, Variables: { Region: 'North' } })] });
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]! + 1);
    expect(db.prepare('SELECT time FROM calls WHERE id = ?').pluck().get(ids[0])).toBe(Date.UTC(2026, 10, 2, 9));
    expect(db.prepare('SELECT value FROM interview_variables WHERE survey_id = ? AND interview_id = 5').pluck().get('p1')).toBe('North');
  });

  it('a referential error names the record index and stores nothing', async () => {
    const e = await asyncStatus(() => ingestHistory(store, 'callhistory', { value: [call(), call({ SurveyId: 'p2' })] }));
    expect(e).toMatchObject({ status: 400, message: expect.stringContaining('Record 1') });
    expect(db.prepare('SELECT COUNT(*) FROM calls').pluck().get()).toBe(0);
    expect(await asyncStatus(() => ingestHistory(store, 'breakhistory', { Time: '2026-11-02T10:00:00Z', InterviewerId: 9, BreakTypeId: 1, BreakTypeName: 'Coffee' }))).toMatchObject({ status: 400 });
  });

  it('refuses more than 10000 records', async () => {
    expect(await asyncStatus(() => ingestHistory(store, 'callhistory', { value: Array.from({ length: 10001 }, () => call()) }))).toMatchObject({ status: 400 });
  });

  it('closes a session with PATCH semantics; a LogoutTime before LoginTime is 400', async () => {
    const [id] = await ingestHistory(store, 'interviewersessionhistory', { InterviewerId: 1, LoginTime: '2026-11-02T08:00:00Z' });
    expect(await asyncStatus(() => closeSession(store, id!, { LogoutTime: '2026-11-02T07:00:00Z' }))).toMatchObject({ status: 400 });
    await closeSession(store, id!, { LogoutTime: '2026-11-02T12:00:00Z' });
    expect(db.prepare('SELECT logout_time FROM sessions WHERE id = ?').pluck().get(id)).toBe(Date.UTC(2026, 10, 2, 12));
    expect(await asyncStatus(() => closeSession(store, 999, { LogoutTime: '2026-11-02T12:00:00Z' }))).toMatchObject({ status: 404 });
  });
});

describe('time parsing', () => {
  it('reads offsets, treats a missing offset as UTC, and refuses impossible dates', () => {
    expect(parseIsoTime('2026-11-02T09:15:00.123Z')).toBe(Date.UTC(2026, 10, 2, 9, 15, 0, 123));
    expect(parseIsoTime('2026-11-02T09:15:00')).toBe(Date.UTC(2026, 10, 2, 9, 15));
    expect(parseIsoTime('2026-11-02T09:15:00-05:30')).toBe(Date.UTC(2026, 10, 2, 14, 45));
    expect(parseIsoTime('2026-02-30T00:00:00Z')).toBeUndefined();
    expect(parseIsoTime('yesterday')).toBeUndefined();
  });

  it("reads toISOString's form digit by digit exactly as the general parser reads it, valid or not", () => {
    // A leading space takes the general (regex) path, which trims it; the plain text takes the digit-by-digit one.
    const general = (t: string) => parseIsoTime(` ${t}`);
    const texts = [
      '2026-11-02T09:15:00.123Z', '2026-11-02T09:15:00Z', '2024-02-29T23:59:59.999Z', '2023-02-29T00:00:00.000Z', '2000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-12-31T24:00:00Z', '2026-12-31T23:60:00Z', '2026-12-31T23:59:60Z',
      '2026-00-10T00:00:00Z', '2026-13-10T00:00:00Z', '2026-01-00T00:00:00Z', '0999-01-01T00:00:00.000Z', '0050-01-01T00:00:00Z',
      '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2026-11-02T09:15:00.12Z', '2026-11-02T09:15:00.1234Z', '2026-11-02t09:15:00Z',
      '2026-11-02T09:15:00.123z', '2026-11-02 09:15:00.123Z', '2026-11-02T09:1a:00.123Z', '2026-11-02T09:15:00.12aZ', '2026-1１-02T09:15:00Z',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(random() * 4e12) - 5e11;
      const iso = new Date(ms).toISOString();
      expect(parseIsoTime(iso)).toBe(ms);
      const chars = [...iso];
      chars[Math.floor(random() * chars.length)] = '0123456789-:.TZx'[Math.floor(random() * 16)]!; // one character changed
      texts.push(chars.join(''), iso.replace('.000Z', 'Z'));
    }
    for (const t of texts) expect(parseIsoTime(t), t).toBe(general(t));
  });
});
