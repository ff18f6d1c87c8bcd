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
  if (!report) return;
  const text = `What the browser showed when the test failed (attempt ${(task.result.retryCount ?? 0) + 1}):\n${report}`;
  // In the log as well: a failure that a retry under CI made good is not reported as a failure.
  console.error(text);
  throw new Error(text);
});
