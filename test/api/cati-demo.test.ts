import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFile } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { createDemoOrganisation } from '../../server/demo/demo-entities.ts';
import { insertCalls } from '../../server/demo/demo-history.ts';
import { loadDemoIfEmpty } from '../../server/demo/demo.ts';
import { createRng } from '../../server/demo/prng.ts';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const count = async (path: string) => (await t.json('GET', `${path}${path.includes('?') ? '&' : '?'}$count=true&$top=0`)).body['@odata.count'] as number;

beforeAll(async () => {
  t = await startTestServer();
  expect(await loadDemoIfEmpty(t.server.ctx.store, t.server.ctx.config, () => {})).toBe(true);
});
afterAll(() => t.close());

describe('demo data (--demo)', () => {
  it('is a Dutch call centre: the phone region is NL (docs/cati-api.md#phone-region)', async () => {
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });
    expect((await t.json('GET', "/cati/blacklist/Controller.Check(telephoneNumber='06-12345678')")).body.Normalized).toBe('31612345678');
  });

  it('loads a realistic call centre: ≥2 call centres, ≥50 interviewers, ≥6 groups, ≥10 surveys with variables', async () => {
    expect(await count('/cati/callcenters')).toBeGreaterThanOrEqual(2);
    expect(await count('/cati/interviewers')).toBeGreaterThanOrEqual(50);
    expect(await count('/cati/groups')).toBeGreaterThanOrEqual(6);
    const surveys = (await t.json('GET', '/cati/surveys')).body.value as { Variables: { AvailableAsCatiFilter: boolean }[] }[];
    expect(surveys.length).toBeGreaterThanOrEqual(10);
    expect(surveys.every((s) => s.Variables.some((v) => v.AvailableAsCatiFilter))).toBe(true);
  });

  it('has ≥100k calls within the last 30 days, plus breaks, sessions, blacklist and opt-out entries', async () => {
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    expect(await count(`/cati/callhistory?$filter=Time ge ${since} and Time le now()`)).toBeGreaterThanOrEqual(100_000);
    expect(await count('/cati/breakhistory')).toBeGreaterThan(0);
    expect(await count('/cati/interviewersessionhistory')).toBeGreaterThan(0);
    expect(await count('/cati/blacklist')).toBeGreaterThan(0);
    expect(await t.server.ctx.store.value('SELECT COUNT(*) FROM optout_emails')).toBeGreaterThan(0);
  });

  it('answers /callhistorywithvariables with demo answers', async () => {
    const r = await t.json('GET', '/cati/callhistorywithvariables?variables=Region&$filter=InterviewId le 100 and SurveyId ne null&$top=20');
    expect(r.status).toBe(200);
    expect(r.body.value.some((row: { Variables: { Value: string | null }[] }) => row.Variables[0]!.Value !== null)).toBe(true);
  });

  it('does nothing on a database that already holds data', async () => {
    const lines: string[] = [];
    expect(await loadDemoIfEmpty(t.server.ctx.store, t.server.ctx.config, (l) => lines.push(l))).toBe(false);
    expect(lines.join()).toMatch(/already holds data/);
  });
});

describe('demo data tells the truth (docs/cati-api.md#floor)', () => {
  const one = async (sql: string) => (await t.server.ctx.store.value<number>(sql))!;

  it('no interviewer\'s call or break lies outside one of its sessions, and none overlap', async () => {
    expect(await one(`SELECT COUNT(*) FROM calls c WHERE c.interviewer_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions s
      WHERE s.interviewer_id = c.interviewer_id AND s.login_time <= c.time
        AND (s.logout_time IS NULL OR c.time + COALESCE(c.duration, 0) * 1000 <= s.logout_time))`)).toBe(0);
    expect(await one(`SELECT COUNT(*) FROM breaks b WHERE NOT EXISTS (SELECT 1 FROM sessions s
      WHERE s.interviewer_id = b.interviewer_id AND s.login_time <= b.time
        AND (s.logout_time IS NULL OR b.time + COALESCE(b.duration, 0) * 1000 <= s.logout_time))`)).toBe(0);
    expect(await one(`WITH ev AS (SELECT interviewer_id i, time t, time + COALESCE(duration, 0) * 1000 e FROM calls WHERE interviewer_id IS NOT NULL
        UNION ALL SELECT interviewer_id, time, time + COALESCE(duration, 0) * 1000 FROM breaks),
      o AS (SELECT t, LAG(e) OVER (PARTITION BY i ORDER BY t) pe FROM ev) SELECT COUNT(*) FROM o WHERE pe > t`)).toBe(0);
    expect(await one(`WITH s AS (SELECT interviewer_id i, login_time a, COALESCE(logout_time, 9e15) b FROM sessions),
      o AS (SELECT a, LAG(b) OVER (PARTITION BY i ORDER BY a) pb FROM s) SELECT COUNT(*) FROM o WHERE pb > a`)).toBe(0);
  });

  it('nothing starts in the future; at most one open session per interviewer; open calls and breaks only in open sessions', async () => {
    const now = Date.now();
    expect(await one(`SELECT MAX(m) FROM (SELECT MAX(login_time) m FROM sessions UNION ALL SELECT MAX(logout_time) FROM sessions
      UNION ALL SELECT MAX(time) FROM calls UNION ALL SELECT MAX(time) FROM breaks) latest`)).toBeLessThanOrEqual(now);
    expect(await one('SELECT COUNT(*) FROM (SELECT interviewer_id FROM sessions WHERE logout_time IS NULL GROUP BY interviewer_id HAVING COUNT(*) > 1) twice')).toBe(0);
    expect(await one(`SELECT COUNT(*) FROM calls c WHERE c.duration IS NULL AND NOT EXISTS (SELECT 1 FROM sessions s
      WHERE s.interviewer_id = c.interviewer_id AND s.logout_time IS NULL AND s.login_time <= c.time)`)).toBe(0);
  });

  it('today\'s floor is busy now: interviewers waiting, on calls and on breaks, one break over its limit', async () => {
    const floor = (await t.json('GET', '/cati/floor?$top=1000')).body.value as { State: string; BreakOverLimit: boolean; CallsToday: number }[];
    expect(floor.length).toBeGreaterThanOrEqual(20);
    for (const state of ['Waiting', 'OnCall', 'OnBreak']) expect(floor.some((r) => r.State === state), state).toBe(true);
    expect(floor.some((r) => r.BreakOverLimit)).toBe(true);
    expect(floor.some((r) => r.CallsToday > 0)).toBe(true);
    const limits = (await t.json('GET', '/cati/breaktypes?$filter=MaxMinutes ne null')).body.value;
    expect(limits.length).toBeGreaterThan(0);
    const zones = (await t.json('GET', '/cati/callcenters')).body.value.map((c: { TimeZone: string }) => c.TimeZone);
    expect(new Set(zones)).toEqual(new Set(['Europe/Amsterdam']));
  });
});

describe('demo calls over 30 days', () => {
  it('span 30 distinct days within the last 30 days even before today\'s opening hour', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cati-days-'));
    const db = SqliteStore.open(databaseFile(dir));
    try {
      const base = await db.transaction((tx) => createDemoOrganisation(tx, createRng(7), Date.parse('2026-10-01T00:00:00Z')));
      for (const clock of ['2026-11-22T05:00:00Z', '2026-11-22T12:00:00Z', '2026-11-22T23:30:00Z']) {
        const now = Date.parse(clock);
        await db.exec('DELETE FROM calls');
        await db.transaction((tx) => insertCalls(tx, createRng(7), base, 3000, now));
        const days = await db.value(`SELECT COUNT(DISTINCT time / 86400000) FROM calls`);
        const [min, max] = (await db.rows('SELECT MIN(time), MAX(time) FROM calls'))[0] as [number, number];
        expect(days, clock).toBe(30);
        expect(min, clock).toBeGreaterThanOrEqual(now - 30 * 86_400_000);
        expect(max, clock).toBeLessThanOrEqual(now);
      }
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run seed', () => {
  it('generates N calls into the data dir (deterministic PRNG, one transaction)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cati-seed-'));
    try {
      // Asynchronously: a spawnSync would block this process's event loop past the server's keep-alive timeout,
      // and the next request would reuse a socket the server had closed meanwhile (ECONNRESET).
      const r = await promisify(execFile)(process.execPath, [...CLI, 'seed', '--data-dir', dir, '--calls', '5000'], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
      expect(r.stdout).toMatch(/inserted 5000 calls/);
      const db = openDatabase(databaseFile(dir), { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) FROM calls').pluck().get()).toBe(5000);
        expect(db.prepare('SELECT MIN(time) >= ? FROM calls').pluck().get(Date.now() - 31 * 86_400_000)).toBe(1);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spreads the calls over --days days (400: a year and more of history), and refuses --days 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cati-seed-'));
    const seed = (...args: string[]) => promisify(execFile)(process.execPath, [...CLI, 'seed', '--data-dir', dir, ...args], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
    try {
      expect((await seed('--calls', '4000', '--days', '400')).stdout).toMatch(/inserted 4000 calls over 400 days/);
      await expect(seed('--calls', '10', '--days', '0')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--days must be at least 1/) });
      const db = openDatabase(databaseFile(dir), { readonly: true });
      try {
        const [min, max] = db.prepare('SELECT MIN(time), MAX(time) FROM calls').raw().get() as [number, number];
        expect(min).toBeGreaterThanOrEqual(Date.now() - 401 * 86_400_000);
        expect(min).toBeLessThan(Date.now() - 398 * 86_400_000);
        expect(max).toBeLessThanOrEqual(Date.now());
        expect(db.prepare('SELECT COUNT(*) FROM calls').pluck().get()).toBe(4000);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('$metadata', () => {
  it('declares every CATI entity set and the bound operations', async () => {
    const xml = await (await t.request('GET', '/cati/$metadata')).text();
    for (const set of ['callcenters', 'groups', 'interviewers', 'interviewerproperties', 'surveys', 'breakhistory', 'callhistory', 'interviewersessionhistory', 'callhistorywithvariables']) {
      expect(xml).toContain(`EntitySet Name="${set}"`);
    }
    for (const fn of ['AssignOnCall', 'AssignOnSurvey', 'DeAssignFromCalls', 'DeAssignFromSurvey', 'GetAssignments', 'GetInterviewers', 'GetGroups', 'CleanAssignments', 'Lock', 'Unlock', 'GetBasicProperties']) {
      expect(xml).toContain(`Name="${fn}"`);
    }
  });
});
