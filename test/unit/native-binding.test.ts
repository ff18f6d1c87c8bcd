import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { newSqliteDatabase, sqliteDriverName } from '../../server/db/native-binding.ts';

// Which better-sqlite3 a runtime loads: 12 (its own build, per Node ABI) below Node-API 10, 13 (`better-sqlite3-napi`,
// prebuilt Node-API binaries) from Node-API 10 — Node ≥ 22.14, Node 24 and Electron 45, whose Node is 24.
const require = createRequire(import.meta.url);

describe('sqliteDriverName', () => {
  it('answers better-sqlite3 12 on Node-API 9 and better-sqlite3 13 from Node-API 10', () => {
    expect(sqliteDriverName({ ...process.versions, node: '20.20.2', napi: '9', modules: '115' })).toBe('better-sqlite3');
    expect(sqliteDriverName({ ...process.versions, node: '22.12.0', napi: '9', modules: '127' })).toBe('better-sqlite3');
    expect(sqliteDriverName({ ...process.versions, node: '22.14.0', napi: '10', modules: '127' })).toBe('better-sqlite3-napi');
    expect(sqliteDriverName({ ...process.versions, node: '24.11.1', napi: '10', modules: '137' })).toBe('better-sqlite3-napi');
    expect(sqliteDriverName({ ...process.versions, napi: '11' })).toBe('better-sqlite3-napi');
  });

  it('answers better-sqlite3 13 under Electron 45 (process.versions of its main process and of its worker threads)', () => {
    const electron = { ...process.versions, node: '24.11.1', napi: '10', modules: '150', electron: '45.4.1', chrome: '142.0.7444.52' };
    expect(sqliteDriverName(electron)).toBe('better-sqlite3-napi');
  });

  it('opens databases with the driver it names for this runtime', () => {
    const name = sqliteDriverName();
    expect(name).toBe(Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3');
    const Driver = require(name);
    const db = newSqliteDatabase(':memory:');
    try {
      expect(db).toBeInstanceOf(Driver);
      expect(db.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});
