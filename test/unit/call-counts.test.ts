import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSqliteDatabase } from '../../server/db/native-binding.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { floorParams } from '../../server/cati/floor-sets.ts';
import { serverTimeZone, todayIn } from '../../common/time-zones.ts';
import { floorModel } from '../../server/cati/floor-models.ts';
import { sqliteDialect } from '../../server/db/dialect.ts';
import { listMigrations, openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { selectList } from '../../server/odata/collection-query.ts';

const dir = mkdtempSync(join(tmpdir(), 'cati-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('call_counts and call_totals (migration 015): the summaries behind the floor\'s calls and completes today', () => {
  const db = openDatabase(join(dir, 'cati.sqlite'));
  const NONE = -2147483649;
  // Noon today in the server's zone: the calls lie around it, so "today" holds them whatever the hour of the run.
  const noon = todayIn(serverTimeZone(), Date.now())[0] + 12 * 3_600_000;
  const summary = () => db.prepare('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY 1, 2, 3').all();
  const totals = () => db.prepare('SELECT interviewer_id, bucket, n FROM call_totals WHERE n <> 0 ORDER BY 1, 2').all();
  const retotal = () =>
    db.prepare('SELECT interviewer_id, time / 900000 AS bucket, COUNT(*) AS n FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2').all();
  const recount = () =>
    db.prepare(`SELECT interviewer_id, time / 900000 AS bucket, COALESCE(extended_status, ${NONE}) AS extended_status, COUNT(*) AS n
      FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`).all();

  it('follows every insert, update and delete of calls in the same transaction', () => {
    db.prepare("INSERT INTO surveys (id, name) VALUES ('p1', 'One')").run();
    const add = db.prepare("INSERT INTO calls (time, survey_id, interviewer_id, telephone_number, extended_status, duration, call_center_id) VALUES (?, 'p1', ?, '0201', ?, 0, 1)");
    for (let i = 0; i < 200; i++) add.run(noon + 3_600_000 - i * 37_000, i % 3 === 0 ? null : 1 + (i % 4), i % 5 === 0 ? null : 1 + (i % 3));
    expect(summary()).toEqual(recount());
    expect(totals()).toEqual(retotal());
    db.prepare('UPDATE calls SET extended_status = 1 WHERE id % 7 = 0').run();
    db.prepare('UPDATE calls SET time = time - 3600000 WHERE id % 11 = 0').run();
    db.prepare('UPDATE calls SET interviewer_id = CASE WHEN interviewer_id IS NULL THEN 9 ELSE NULL END WHERE id % 13 = 0').run();
    db.prepare('UPDATE calls SET duration = 5 WHERE id % 2 = 0').run(); // not a counted column
    db.prepare('DELETE FROM calls WHERE id % 17 = 0').run();
    expect(summary()).toEqual(recount());
    expect(totals()).toEqual(retotal());
    expect(db.prepare('SELECT COUNT(*) FROM calls').pluck().get()).toBeGreaterThan(150);
  });

  it('gives the floor the same figures as counting the calls (the fallback for days that are not whole buckets)', async () => {
    const login = noon - 3 * 3_600_000;
    for (const id of [1, 2, 3, 4, 9]) {
      db.prepare("INSERT INTO interviewers (id, name, call_center_id) VALUES (?, ?, 1) ON CONFLICT DO NOTHING").run(id, `i${id}`);
      db.prepare('INSERT INTO sessions (interviewer_id, call_center_id, login_time) VALUES (?, 1, ?)').run(id, login);
    }
    const sql = `SELECT ${selectList(floorModel(sqliteDialect))} FROM ${floorModel(sqliteDialect).from} ORDER BY f.SessionId`;
    const params = await floorParams(new SqliteStore(db, join(dir, 'cati.sqlite')), noon + 2 * 3_600_000, 24);
    const days = JSON.parse(params[2] as string) as number[][];
    expect(days.every((d) => d[3] === 1)).toBe(true);
    const counted = JSON.stringify(days.map((d) => [...d.slice(0, 3), 0]));
    const viaSummary = db.prepare(sql).all(...params) as { CallsToday: number; CompletesToday: number }[];
    const viaCalls = db.prepare(sql).all(params[0], params[1], counted);
    expect(viaSummary).toEqual(viaCalls);
    expect(viaSummary.reduce((s, r) => s + r.CallsToday, 0)).toBeGreaterThan(50);
    expect(viaSummary.reduce((s, r) => s + r.CompletesToday, 0)).toBeGreaterThan(10);
  });

  it('is kept through a bulk load (npm run seed drops the per-call triggers and counts the calls as it inserts them), and the triggers are back', async () => {
    await seedCalls(new SqliteStore(db, join(dir, 'cati.sqlite')), 3000, () => {}, 400);
    expect(summary()).toEqual(recount());
    expect(totals()).toEqual(retotal());
    // call_id_ranges (migration 014) bounds every hour's ids, those of the seeded calls included.
    const unbounded = db.prepare(`SELECT COUNT(*) FROM (SELECT time / 3600000 AS hour, MIN(id) AS lo, MAX(id) AS hi FROM calls GROUP BY 1) c
      LEFT JOIN call_id_ranges r ON r.hour = c.hour WHERE r.hour IS NULL OR r.min_id > c.lo OR r.max_id < c.hi`);
    expect(unbounded.pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM call_id_ranges').pluck().get()).toBeGreaterThan(1000);
    db.prepare("INSERT INTO calls (time, survey_id, interviewer_id, telephone_number, call_center_id) VALUES (?, 'p1', 2, '0202', 1)").run(noon);
    expect(summary()).toEqual(recount());
    expect(totals()).toEqual(retotal());
  });

  it('migration 015 upgrades a database with calls: both summaries equal the calls, and the triggers keep them so', () => {
    const file = join(dir, 'upgrade.sqlite');
    const old = newSqliteDatabase(file);
    old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const m of listMigrations().filter((m) => m.id < 15)) {
      old.exec(m.sql);
      old.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, 0)').run(m.id, m.name);
    }
    old.prepare("INSERT INTO surveys (id, name) VALUES ('p1', 'One')").run();
    const add = old.prepare("INSERT INTO calls (time, survey_id, interviewer_id, telephone_number, extended_status, duration, call_center_id) VALUES (?, 'p1', ?, '0201', ?, 0, 1)");
    for (let i = 0; i < 500; i++) add.run(noon - i * 97_000, i % 7 === 0 ? null : 1 + (i % 9), i % 5 === 0 ? null : 1 + (i % 4));
    old.exec('DELETE FROM calls WHERE id % 13 = 0');
    old.close();
    const up = openDatabase(file);
    const rows = (sql: string) => up.prepare(sql).all();
    const check = () => {
      expect(rows('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY 1, 2, 3')).toEqual(
        rows(`SELECT interviewer_id, time / 900000 AS bucket, COALESCE(extended_status, ${NONE}) AS extended_status, COUNT(*) AS n FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
      );
      expect(rows('SELECT interviewer_id, bucket, n FROM call_totals WHERE n <> 0 ORDER BY 1, 2')).toEqual(
        rows('SELECT interviewer_id, time / 900000 AS bucket, COUNT(*) AS n FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2'),
      );
    };
    check();
    up.exec(`UPDATE calls SET extended_status = 1 WHERE id % 11 = 0; DELETE FROM calls WHERE id % 17 = 0;
      INSERT INTO calls (time, survey_id, interviewer_id, telephone_number, call_center_id) VALUES (${noon}, 'p1', 3, '0203', 1)`);
    check();
    up.close();
  });
});
