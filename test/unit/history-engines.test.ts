/**
 * History, the floor, the demo and the seed on both engines (docs/deployment.md#postgresql): the same steps on a SQLite store and on a
 * PostgreSQL store — demo organisation and shifts through the bulk path, ingest batches with answers, closing PATCHes,
 * a login closing an earlier session, /callhistorywithvariables pages (cheap path, skiptoken, generic subquery with the
 * export's variable columns), the floor from the summaries and from the calls, npm run seed — give the same answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorModel } from '../../server/cati/floor-models.ts';
import { closeBreak, closeCall, closeSession } from '../../server/cati/history-close.ts';
import { ingestHistory } from '../../server/cati/history-ingest.ts';
import { historyWithVariablesPage } from '../../server/cati/history-with-variables-page.ts';
import { callHistoryWithVariablesModel, readHistoryWithVariablesRequest, variableExportColumns, variablesAttacher } from '../../server/cati/history-with-variables.ts';
import { bulkInsertCalls } from '../../server/db/call-counts.ts';
import type { Store } from '../../server/db/store.ts';
import { createDemoLists, createDemoOrganisation, createDemoVariables } from '../../server/demo/demo-entities.ts';
import { insertDemoShifts } from '../../server/demo/demo-shifts.ts';
import { isEmptyForDemo, seedCalls } from '../../server/demo/demo.ts';
import { createRng } from '../../server/demo/prng.ts';
import { selectList } from '../../server/odata/collection-query.ts';
import type { QueryOptions } from '../../server/odata/query-options.ts';
import { openTestStore, pgAvailability } from '../helpers/postgres.ts';

const pg = pgAvailability();
if (!pg.available) console.warn(`SKIPPED (history on PostgreSQL): ${pg.reason}`);

const NOW = Date.parse('2026-11-24T12:00:00Z');
const options = (o: Partial<QueryOptions>) => ({ orderby: [], count: false, ...o }) as QueryOptions;
const message = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.message);

/** Every step's answer, keyed by step. */
async function scenario(store: Store): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { emptyBefore: await isEmptyForDemo(store) };
  const rng = createRng(5);
  const base = await store.transaction((tx) => createDemoOrganisation(tx, rng, NOW));
  out.demo = await store.transaction(async (tx) => {
    await createDemoVariables(tx, rng, base, 20);
    const counts = await bulkInsertCalls(tx, () => insertDemoShifts(tx, rng, base, NOW, () => 'Europe/Amsterdam', 3, 3000));
    await createDemoLists(tx, rng, base, 1, NOW);
    return counts;
  });
  out.emptyAfter = await isEmptyForDemo(store);
  const survey = base.surveys.find((s) => s.open)!.id;

  const [login] = await ingestHistory(store, 'interviewersessionhistory', { InterviewerId: 3, LoginTime: '2026-11-24T11:00:00Z' });
  const calls = await ingestHistory(store, 'callhistory', {
    value: [
      { Time: '2026-11-24T11:05:00Z', SurveyId: survey, TelephoneNumber: '0201', InterviewerId: 3, InterviewId: 7, Duration: null, Variables: { Region: 'Noord' } },
      { Time: '2026-11-24T11:06:00Z', SurveyId: survey, TelephoneNumber: '0202', InterviewerId: 4, InterviewId: 8, ExtendedStatus: 1, Duration: 30 },
    ],
  });
  const [brk] = await ingestHistory(store, 'breakhistory', { Time: '2026-11-24T11:07:00Z', InterviewerId: 4, BreakTypeId: 1, BreakTypeName: 'Coffee', Duration: null });
  out.ids = { login, calls, brk };
  out.unknownSurvey = await message(ingestHistory(store, 'callhistory', { value: [{ Time: '2026-11-24T11:05:00Z', SurveyId: 'p1', TelephoneNumber: '1' }] }));
  out.closeCall = await message(closeCall(store, calls[0]!, { Duration: 40, ExtendedStatus: 1, Variables: { Region: 'Zuid' } }));
  out.closeBreak = await message(closeBreak(store, brk!, { Duration: 60 }));
  out.closeAgain = await message(closeBreak(store, brk!, { Duration: 60 }));
  const [relogin] = await ingestHistory(store, 'interviewersessionhistory', { InterviewerId: 3, LoginTime: '2026-11-24T11:30:00Z' });
  out.closeSession = await message(closeSession(store, relogin!, { LogoutTime: '2026-11-24T11:45:00Z' }));

  const variables = base.surveys.find((s) => s.id === survey)!.variables.slice(0, 2).join(',');
  const request = await readHistoryWithVariablesRequest(store, {
    startTime: '2026-11-20T00:00:00Z', endTime: '2026-11-24T12:00:00Z', includeBreakTimes: 'true', includeLoginLogoutInfo: 'true', surveyIds: `${survey},p1`, variables,
  });
  const page = await historyWithVariablesPage(store, request, options({ count: true, top: 50, skip: 5 }));
  out.page = { ...page, rows: await variablesAttacher(store, request.variables)(page.rows) };
  const first = await historyWithVariablesPage(store, request, options({}), 40);
  out.nextPage = await historyWithVariablesPage(store, request, options({ skiptoken: first.nextSkiptoken }), 40);
  const model = callHistoryWithVariablesModel(store.dialect);
  const columns = variableExportColumns(store.dialect, request.variables).sql((name) => model.properties.find((p) => p.name === name)?.column)!;
  out.generic = await store.all(
    `SELECT ${selectList(model)}${columns.map((c, i) => `, ${c.sql} AS "v${i}"`).join('')} FROM ${model.from} ORDER BY h.number_in_order LIMIT 60 OFFSET 30`,
    [...columns.flatMap((c) => c.params), ...request.fromParams],
  );

  const floor = floorModel(store.dialect);
  const centres = await store.column<number>('SELECT id FROM call_centers ORDER BY id');
  const day = Date.parse('2026-11-23T23:00:00Z');
  for (const whole of [1, 0]) {
    const json = JSON.stringify(centres.map((id) => [id, day, day + 86_400_000, whole]));
    out[`floor${whole}`] = await store.all(`SELECT ${selectList(floor)} FROM ${floor.from} ORDER BY f.SessionId`, [NOW, NOW - 12 * 3_600_000, json]);
  }
  out.counts = await store.rows('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY 1, 2, 3');
  await seedCalls(store, 2000, () => {}, 5);
  out.seeded = await store.rows('SELECT COUNT(*), COUNT(DISTINCT interviewer_id), SUM(duration) FROM calls');
  // The seed's calls follow the clock: compare the summary with the calls on each engine, not across them.
  const summary = await store.rows('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY 1, 2, 3');
  const recountSql = `SELECT interviewer_id, time / 900000, COALESCE(extended_status, -2147483649), COUNT(*) FROM calls
    WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
  const recount = await store.rows(recountSql);
  out.summaryFollowsCalls = JSON.stringify(summary) === JSON.stringify(recount);
  const ranges = await store.rows('SELECT hour, min_id, max_id FROM call_id_ranges ORDER BY hour');
  const rerange = await store.rows('SELECT time / 3600000, MIN(id), MAX(id) FROM calls GROUP BY 1 ORDER BY 1');
  out.rangesFollowCalls = JSON.stringify(ranges) === JSON.stringify(rerange);
  await store.run('DELETE FROM calls WHERE id % 7 = 0'); // one statement: PostgreSQL's statement-level trigger uncounts them all
  const afterDelete = await store.rows('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY 1, 2, 3');
  out.summaryFollowsDelete = JSON.stringify(afterDelete) === JSON.stringify(await store.rows(recountSql));
  out.answers = await store.rows('SELECT survey_id, interview_id, name, value FROM interview_variables ORDER BY 1, 2, 3 LIMIT 40');
  out.sessions = await store.rows('SELECT id, interviewer_id, login_time, logout_time, version FROM sessions ORDER BY id DESC LIMIT 5');
  return out;
}

describe('history on both engines', () => {
  const stores: Store[] = [];
  beforeAll(async () => {
    stores.push(await openTestStore('sqlite'));
    if (pg.available) stores.push(await openTestStore('postgres'));
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it.skipIf(!pg.available)('gives the same answers on SQLite and PostgreSQL', { timeout: 120_000 }, async () => {
    const [onSqlite, onPostgres] = [await scenario(stores[0]!), await scenario(stores[1]!)];
    expect((onSqlite.floor1 as unknown[]).length).toBeGreaterThan(10);
    expect((onSqlite.page as { rows: unknown[] }).rows).toHaveLength(50);
    expect((onSqlite.nextPage as { rows: unknown[] }).rows).toHaveLength(40);
    expect(onSqlite.closeAgain).toMatch(/already closed/);
    expect(onSqlite.unknownSurvey).toMatch(/Record 0: unknown survey 'p1'/);
    expect(onSqlite.summaryFollowsCalls).toBe(true);
    expect(onSqlite.rangesFollowCalls).toBe(true);
    expect(onSqlite.summaryFollowsDelete).toBe(true);
    for (const step of Object.keys(onSqlite)) expect(onPostgres[step], step).toEqual(onSqlite[step]);
  });
});
