/**
 * Runs around every test file (vitest `setupFiles`): when a test with a browser page open fails, a second error
 * follows its own, saying what the page showed and did last (test/e2e/page-log.ts). A step that waits for something
 * that never comes ends the test with its own words, but the CI log is all there is of a run that failed there.
 */
import { afterEach } from 'vitest';
import { describeOpenPages } from '../e2e/page-log.ts';

afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const report = await describeOpenPages();
  if (report) throw new Error(`What the browser showed when the test failed:\n${report}`);
});
