import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, as measured on the 2-core machine (`--reporter=json` durations): started first,
 * so a run does not end with a few workers idle while one of them finishes a long file. vitest orders files by the
 * durations in its cache when it has them; a fresh clone (CI) has none, and file size is a poor guess. Files not
 * listed keep vitest's order after these. A file renamed or removed here only loses its place.
 */
const SLOWEST = [
  'test/api/crash-safety.test.ts',
  'test/unit/odata-fuzz.test.ts',
  'test/api/cli.test.ts',
  'test/api/cati-demo.test.ts',
  'test/api/users.test.ts',
  'test/api/optout-import.test.ts',
  'test/e2e/role-screens.test.ts',
  'test/e2e/screen-states.test.ts',
  'test/api/files-corpus.test.ts',
  'test/e2e/wallboard-pages.test.ts',
  'test/api/users-cli.test.ts',
  'test/unit/large-scans.test.ts',
  'test/unit/optout-import-service.test.ts',
  'test/api/odata-export.test.ts',
  'test/api/pg-faults.test.ts',
  'test/api/demo-live.test.ts',
  'test/e2e/people.test.ts',
  'test/e2e/desktop-settings.test.ts',
  'test/e2e/data-table.test.ts',
];

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? SLOWEST.length : i;
    };
    return sorted.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
  }
}
