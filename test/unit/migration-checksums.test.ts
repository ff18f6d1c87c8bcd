/**
 * Shipped migrations never change (STYLE: migrations are ordered and never edited once shipped). Each file up
 * to 012 is pinned by the SHA-256 of its text (line endings normalised to LF, so a Windows checkout hashes the
 * same). Rule for new ones: a migration not pinned here must be numbered above the last pinned one; once it
 * ships, add its checksum below — from then on an edit fails this test.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.ts';

const DIR = join(REPO_ROOT, 'server', 'db', 'migrations');

const SHIPPED: Record<string, string> = {
  '001-core.sql': '900d6ff45a1727c5793863efdc7687f35c0b8173db6755a0e04b8b46024ef4c9',
  '002-blacklist.sql': 'c7bf9f07c36c89b7180d240d7577811f9b52a50ccfa13038608b88d4dfcc7f69',
  '003-cati.sql': 'faad01dd13981ef83a132ddce32de1f21fc9591a93ffc0942ada57e63905f913',
  '004-optout.sql': '401829a754c1bf3d8a026d68c5c16a8e076da846a55797eab396e5c654c3356c',
  '005-blacklist-index.sql': 'b89c752e7ad08be8a96051ecc928294fa8d13e77f1c9b27728c30d53560faa56',
  '006-audit.sql': '8b1f1031fa07434eb5b14b4ca17323156d043954d76c708ed37cec09ea0abd47',
  '007-floor.sql': 'a74187b3eb08a58e4b39b06dea20d2a9f422497659091c433bc50deebbdfda69',
  '012-ui-sessions.sql': '85c1ab44104a1a80847cf31de57b056c235f3250bf159425edd2ffa42a4db8cb',
};
const LAST_PINNED = 12;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(join(DIR, file), 'utf8').replace(/\r\n/g, '\n')).digest('hex');
const files = readdirSync(DIR).filter((f) => f.endsWith('.sql')).sort();

describe('shipped migrations', () => {
  it.each(Object.entries(SHIPPED))('%s is unchanged and still present', (file, checksum) => {
    expect(files).toContain(file);
    expect(sha256(file), `${file} was edited; add a new migration instead`).toBe(checksum);
  });

  it('every other migration is new: named NNN-kebab-name.sql, numbered above the last shipped one, numbers unique', () => {
    const numbers = files.map((f) => Number(f.slice(0, 3)));
    expect(new Set(numbers).size).toBe(files.length);
    for (const f of files.filter((f) => !(f in SHIPPED))) {
      expect(f).toMatch(/^\d{3}-[a-z0-9]+(-[a-z0-9]+)*\.sql$/);
      expect(Number(f.slice(0, 3)), `${f}: a migration numbered at or below ${LAST_PINNED} that is not pinned`).toBeGreaterThan(LAST_PINNED);
    }
  });
});
