/**
 * Screenshots of the main screens for docs/screenshots/ (`npm run screenshots`): a real server over a temp
 * data dir, some realistic entries created through the API, then each screen in Chromium.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { screenshotCatiScreens } from './cati-screenshots.ts';
import { screenshotReportScreens } from './report-screenshots.ts';
import { screenshotFloor } from './floor-screenshots.ts';
import { startUi } from './ui-harness.ts';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');

const ui = await startUi();
try {
  mkdirSync(OUT, { recursive: true });
  const api = ui.server.json;
  const numbers = ['+49 30 1234567', '0800 111 222', '0049 89 5550', '+44 20 7946 0000', '0900'];
  for (const [i, n] of numbers.entries()) {
    await api('POST', '/cati/blacklist', {
      body: { TelephoneNumber: n, Type: n.length < 6 ? 'StartWith' : 'Equal', Comment: ['Asked not to be called', 'Complaint 2026-10', null, 'Do-not-call register', 'Premium numbers'][i] },
    });
  }
  const { body: list } = await api('POST', '/optout/lists', { body: {} });
  for (const e of ['anna.schmidt@example.com', 'j.doe@example.org', 'info@shop.example', 'max.mustermann@example.de']) {
    await api('POST', `/optout/lists/${list.id}/emails`, { body: { emailAddress: e } });
  }

  const page = await ui.open('blacklist');
  await page.getByRole('table').getByText('49301234567').waitFor();
  await page.screenshot({ path: join(OUT, 'blacklist.png') });

  await page.getByRole('form', { name: 'Add a number' }).getByLabel('Number').fill('call me');
  await page.getByRole('form', { name: 'Add a number' }).getByRole('button', { name: 'Add' }).click();
  await page.getByRole('alert').waitFor();
  await page.screenshot({ path: join(OUT, 'error-shown.png') });

  await page.evaluate(() => (window.location.hash = '#/optout'));
  await page.getByRole('tabpanel').getByText('anna.schmidt@example.com').waitFor();
  await page.screenshot({ path: join(OUT, 'optout.png') });

  for (const [login, display] of [['anna.berg', 'Anna Berg'], ['ben.cole', 'Ben Cole'], ['chris.diaz', 'Chris Díaz']]) {
    await api('POST', '/cati/interviewerproperties', { body: { Name: login, DisplayName: display, Password: 'screenshot-1', Location: 'Berlin' } });
  }
  const { body: ben } = await api('GET', "/cati/interviewers?$filter=Name eq 'ben.cole'");
  await api('GET', `/cati/interviewers(${ben.value[0].InterviewerId})/Controller.Lock()`);
  await page.evaluate(() => (window.location.hash = '#/interviewers'));
  await page.getByRole('table').getByText('Chris Díaz').waitFor();
  // One row's action menu open (Surveys, Edit, Unlock).
  await page.getByRole('button', { name: 'Actions for ben.cole' }).click();
  await page.getByRole('menu', { name: 'Actions for ben.cole' }).waitFor();
  await page.screenshot({ path: join(OUT, 'interviewers.png') });
  await page.keyboard.press('Escape');

  await screenshotCatiScreens(ui, page, OUT);
  await screenshotReportScreens(ui, page, OUT);

  await page.evaluate(() => (window.location.hash = '#/settings'));
  await page.getByRole('heading', { name: 'Unsubscribe pages' }).waitFor();
  await page.getByLabel('Company name').fill('Acme Research');
  await page.screenshot({ path: join(OUT, 'settings.png'), fullPage: true });
  await screenshotFloor(OUT);
  console.log(`screenshots written to ${OUT}`);
} finally {
  await ui.close();
}
