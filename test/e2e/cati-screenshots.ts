/**
 * Screenshots of the Groups, Surveys and History screens for `npm run screenshots`: realistic surveys, groups,
 * assignments and today's history posted through the API (as the interviewing system would), then each screen.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { UiHarness } from './ui-harness.ts';

/** Creates the CATI data and writes groups.png, surveys.png and history.png into `out`. */
export async function screenshotCatiScreens(ui: UiHarness, page: Page, out: string): Promise<void> {
  const api = ui.server.json;
  await api('POST', '/cati/surveys', {
    body: {
      SurveyId: 'p10020031', SurveyName: 'Health monitor 2026', SampleSize: 2400, State: 'Open',
      BasicProperties: { CallDeliveryMode: 'InOrder', Scheduling: 'Weekdays 9-20', ExtendedStatusGroup: 'Standard', CallGroups: true },
      Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }, { Name: 'Region', AvailableAsCatiFilter: true }],
    },
  });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p10020032', SurveyName: 'Mobility panel, wave 3', SampleSize: 800, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p10019876', SurveyName: 'Customer satisfaction Q3', SampleSize: 1200, State: 'Closed' } });
  const day = (await api('POST', '/cati/groups', { body: { Name: 'Day shift', Description: 'Mon–Fri 8:00–16:00' } })).body.GroupId;
  await api('POST', '/cati/groups', { body: { Name: 'Evening shift', Description: 'Mon–Fri 16:00–22:00' } });
  await api('POST', '/cati/groups', { body: { Name: 'Day shift seniors', Description: 'Supervise new interviewers', ParentGroups: [day] } });
  const { body: ivs } = await api('GET', '/cati/interviewers?$orderby=Name');
  const ids = ivs.value.map((i: { InterviewerId: number }) => i.InterviewerId) as number[];
  for (const id of ids) await api('PUT', `/cati/interviewerproperties(${id})`, { body: { ParentGroups: [day] } });
  await api('GET', `/cati/groups(${day})/Controller.AssignOnSurvey(surveyId='p10020031',callCenterId=1)`);
  for (const interviewId of [101, 102, 103, 104]) {
    await api('GET', `/cati/groups(${day})/Controller.AssignOnCall(surveyId='p10020031',interviewId=${interviewId},callCenterId=1)`);
  }
  if (ids[0]) await api('GET', `/cati/interviewers(${ids[0]})/Controller.AssignOnSurvey(surveyId='p10020031')`);

  // Spread over the last hour, never before today's midnight (the screen's default range is today).
  const midnight = new Date().setHours(0, 0, 0, 0);
  const at = (minutes: number) => new Date(Math.max(midnight, Date.now() - (60 - minutes) * 60_000)).toISOString();
  const phones = ['03055512301', '04055531187', '08955574410', '02215559032', '06955507721', '07115553388', '03515556104'];
  const calls = phones.map((phone, i) => ({
    Time: at(10 + i * 7), SurveyId: 'p10020031', InterviewId: 101 + i, InterviewerId: ids[i % ids.length], TelephoneNumber: phone,
    ExtendedStatus: [1, 12, 7, 1, 23, 12, 1][i], Duration: [312, 45, 0, 540, 20, 61, 288][i], WaitingTime: [3, 5, 30, 2, 4, 6, 3][i],
    Variables: { Age: String(25 + i * 6), Region: ['Berlin', 'Hamburg', 'Bavaria', 'NRW', 'Hesse', 'BW', 'Saxony'][i] },
  }));
  await api('POST', '/cati/callhistory', { body: { value: calls } });
  await api('POST', '/cati/breakhistory', { body: { Time: at(30), InterviewerId: ids[0], SurveyId: 'p10020031', BreakTypeId: 1, BreakTypeName: 'Coffee', Duration: 300, IsPaid: true } });
  await api('POST', '/cati/interviewersessionhistory', { body: { value: ids.map((id, i) => ({ InterviewerId: id, LoginTime: at(i * 3) })) } });

  await page.evaluate(() => (window.location.hash = '#/groups'));
  await page.getByRole('button', { name: 'Open Day shift', exact: true }).click();
  await page.getByRole('table', { name: 'Survey assignments' }).getByText('Health monitor 2026 (p10020031)').first().waitFor();
  await page.screenshot({ path: join(out, 'groups.png'), fullPage: true });

  await page.evaluate(() => (window.location.hash = '#/surveys'));
  await page.getByRole('button', { name: 'Open Health monitor 2026' }).click();
  await page.getByRole('table', { name: 'Assigned groups and interviewers' }).getByText('Day shift', { exact: true }).waitFor();
  await page.screenshot({ path: join(out, 'surveys.png'), fullPage: true });

  await page.evaluate(() => (window.location.hash = '#/history'));
  await page.getByRole('tab', { name: 'With variables' }).click();
  const filters = page.getByRole('search', { name: 'History filters' });
  await filters.getByLabel('Survey ids').fill('p10020031');
  await filters.getByLabel('Variables').fill('Age,Region');
  await filters.getByLabel('Breaks').check();
  await filters.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('columnheader', { name: 'Region' }).waitFor();
  await page.screenshot({ path: join(out, 'history.png'), fullPage: true });
}
