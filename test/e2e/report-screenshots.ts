/**
 * Screenshots of the report screens (Surveys today, Productivity) for `npm run screenshots`: a day and a half of
 * calls, sessions and breaks of eight interviewers posted through the ingest API, then each screen.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { UiHarness } from './ui-harness.ts';

const MIN = 60_000;
// Outcome codes of the default table, weighted like a real evening: many no-answers, some completes and refusals.
const OUTCOMES = [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 9, 10];

/** A deterministic pseudo-random sequence (the screenshots come out the same each time). */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
}

/** Posts the report data and writes surveys-today.png and productivity.png into `out`. */
export async function screenshotReportScreens(ui: UiHarness, page: Page, out: string): Promise<void> {
  const api = ui.server.json;
  const surveys = [
    ['p20010001', 'Health monitor 2026', 900],
    ['p20010002', 'Mobility panel, wave 3', 400],
    ['p20010003', 'Energy prices', 250],
  ] as const;
  for (const [SurveyId, SurveyName, SampleSize] of surveys) await api('POST', '/cati/surveys', { body: { SurveyId, SurveyName, SampleSize, State: 'Open' } });
  const names = [['hanna.k', 'Hanna Krüger'], ['omar.b', 'Omar Benali'], ['lisa.m', 'Lisa Meyer'], ['tom.w', 'Tom Weber'], ['ines.s', 'Inês Silva'], ['paul.r', 'Paul Roth'], ['mia.l', 'Mia Lang'], ['jan.v', 'Jan Vos']];
  const ids: number[] = [];
  for (const [Name, DisplayName] of names) ids.push((await api('POST', '/cati/interviewerproperties', { body: { Name, DisplayName, Password: 'screenshot-1' } })).body.InterviewerId);

  const rnd = random(7);
  const now = Date.now();
  const midnight = new Date().setHours(0, 0, 0, 0);
  const calls: object[] = [];
  const sessions: object[] = [];
  const breaks: object[] = [];
  for (const [day, from, to] of [[-1, 8, 20], [0, 8, 24]] as const) {
    const base = midnight + day * 24 * 60 * MIN;
    ids.forEach((id, n) => {
      const login = base + from * 60 * MIN + Math.floor(rnd() * 20) * MIN;
      const logout = Math.min(base + (to - (n % 3)) * 60 * MIN, now);
      if (login >= now) return;
      sessions.push({ InterviewerId: id, LoginTime: new Date(login).toISOString(), LogoutTime: logout >= now ? null : new Date(logout).toISOString() });
      for (let t = login + 2 * MIN, k = 0; t < logout - 5 * MIN; k++) {
        const status = OUTCOMES[Math.floor(rnd() * OUTCOMES.length)]!;
        const duration = status === 1 ? 600 + Math.floor(rnd() * 600) : status === 5 ? 30 + Math.floor(rnd() * 60) : Math.floor(rnd() * 40);
        const waiting = 10 + Math.floor(rnd() * (40 + n * 8));
        const survey = surveys[(n + (k % 5 === 0 ? 1 : 0)) % surveys.length]![0];
        calls.push({ Time: new Date(t).toISOString(), SurveyId: survey, InterviewerId: id, TelephoneNumber: `030${5550000 + calls.length}`, ExtendedStatus: status, Duration: duration, WaitingTime: waiting });
        t += (duration + waiting) * 1000 + Math.floor(rnd() * 90) * 1000;
        if (k % 25 === 12 && t < logout - 20 * MIN) {
          const long = k % 50 === 37;
          breaks.push({ Time: new Date(t).toISOString(), InterviewerId: id, BreakTypeId: long ? 2 : 1, BreakTypeName: long ? 'Lunch' : 'Coffee', Duration: (long ? 30 : 8 + n) * 60, IsPaid: !long });
          t += (long ? 30 : 8 + n) * MIN;
        }
      }
    });
  }
  for (const [path, rows] of [['/cati/interviewersessionhistory', sessions], ['/cati/callhistory', calls], ['/cati/breakhistory', breaks]] as const) {
    const r = await api('POST', path, { body: { value: rows } });
    if (r.status !== 201) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  }

  await page.evaluate(() => (window.location.hash = '#/surveys-today'));
  await page.getByRole('table', { name: 'Surveys today' }).getByText('Health monitor 2026').first().waitFor();
  await page.getByRole('img', { name: /^Calls per hour/ }).waitFor();
  await page.screenshot({ path: join(out, 'surveys-today.png'), fullPage: true });

  await page.evaluate(() => (window.location.hash = '#/productivity?range=yesterday&orderby=CompletesPerHour%20desc'));
  await page.getByRole('table', { name: 'Productivity by interviewer' }).getByText('Hanna Krüger (hanna.k)').waitFor();
  await page.getByRole('img', { name: /^Completes per login hour/ }).waitFor();
  await page.screenshot({ path: join(out, 'productivity.png'), fullPage: true });
}
