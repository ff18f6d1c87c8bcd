import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, SHARED_TESTDATA, sharedData } from '../helpers/shared-data.ts';

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('shared test data', () => {
  it('is found relative to the repository root, not the working directory or one machine', () => {
    expect(existsSync(join(REPO_ROOT, 'package.json'))).toBe(true);
    expect(SHARED_TESTDATA).toBe(resolve(REPO_ROOT, '..', 'shared', 'testdata'));
    // No test names one machine's absolute path.
    const offenders = testFiles(join(REPO_ROOT, 'test')).filter((f) => /['"`]\/work\//.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('a missing file fails under CI=true instead of skipping', () => {
    vi.stubEnv('CI', 'true');
    expect(() => sharedData('no/such-file.txt')).toThrow(/missing \(CI=true\)/);
  });

  it('a missing file outside CI is reported and skipped', () => {
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(sharedData('no/such-file.txt')).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/SKIPPED/));
  });
});
