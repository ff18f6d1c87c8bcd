import { recordAuditSync } from '../audit/audit-log.ts';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open.ts';
import { hashKey, writeIfIdle } from './key-hash.ts';
import { PERMISSIONS, type ApiKeyInfo, type Permission } from './key-types.ts';
import { UiSessionStore } from './ui-sessions.ts';

export { hashKey } from './key-hash.ts';

export { PERMISSIONS, type ApiKeyInfo, type Permission } from './key-types.ts';

/** What an authenticated request may do. */
export interface Principal {
  keyId: number | null; // null: the in-memory CATI_API_KEY
  name: string;
  permissions: ReadonlySet<Permission>;
  /** Project ids that limit optout_administrate; null = every project. */
  projects: readonly string[] | null;
  /** Set when the key is a UI session key (the headless UI link's). */
  uiSessionId?: number;
}

interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  permissions: string;
  projects: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Validates a comma-separated or array permission list. */
export function parsePermissions(input: string | readonly string[]): Permission[] {
  const names = (typeof input === 'string' ? input.split(',') : input).map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new Error(`At least one permission is required (${PERMISSIONS.join(', ')})`);
  for (const n of names) {
    if (!(PERMISSIONS as readonly string[]).includes(n)) throw new Error(`Unknown permission '${n}' (known: ${PERMISSIONS.join(', ')})`);
  }
  return [...new Set(names)] as Permission[];
}

/** Validates project ids (`p` + digits) limiting optout_administrate. */
export function parseProjects(input: string | readonly string[] | null | undefined): string[] | null {
  if (input == null) return null;
  const ids = (typeof input === 'string' ? input.split(',') : input).map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) return null;
  for (const id of ids) if (!/^p\d+$/.test(id)) throw new Error(`Project id '${id}' must be 'p' followed by digits`);
  return [...new Set(ids)];
}

const toIso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());

function toInfo(r: KeyRow): ApiKeyInfo {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    permissions: r.permissions.split(',') as Permission[],
    projects: r.projects ? r.projects.split(',') : null,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: toIso(r.last_used_at),
    revokedAt: toIso(r.revoked_at),
  };
}

/** How long an authenticated key is served from memory before SQLite is asked again. */
const CACHE_MS = 5_000;
/** Cached keys at most (a flood of distinct valid keys cannot grow memory; unknown keys are never cached). */
const CACHE_MAX = 1_000;

interface CachedKey {
  principal: Principal;
  /** When the last-used stamp was last written (or read), for the once-a-minute throttle. */
  lastUsedAt: number | null;
  until: number;
}

/**
 * API-key store over the `api_keys` table. An authenticated key is cached by digest for a few seconds, and
 * revocation stays immediate: `revoke` here empties the cache, and a commit by any other connection (the
 * `keys revoke` CLI on the same data dir) changes `PRAGMA data_version`, which is checked on every request.
 */
export class ApiKeyStore {
  private readonly cache = new Map<string, CachedKey>();
  private readonly dataVersion;
  private cachedVersion = -1;
  /** Keys held in memory for this run only (CATI_API_KEY, the UI session key), by digest. */
  private readonly memoryKeys = new Map<string, { name: string; permissions: ReadonlySet<Permission> }>();
  private readonly byHash;
  private readonly touch;
  /** The headless UI link's tokens and session keys (CONTRACT §2). */
  readonly ui: UiSessionStore;

  constructor(private readonly db: Db) {
    this.ui = new UiSessionStore(db);
    this.byHash = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL');
    this.touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** Accepts `key` (with every permission unless limited) for this run only; it is never written to the database. */
  addMemoryKey(key: string, name: string, permissions: readonly Permission[] = PERMISSIONS): void {
    this.memoryKeys.set(hashKey(key), { name, permissions: new Set(permissions) });
  }

  /** Creates a random in-memory key with every permission (the desktop window's, handed over the preload bridge). */
  createSessionKey(): string {
    const key = `session_${randomBytes(24).toString('base64url')}`;
    this.addMemoryKey(key, 'UI session');
    return key;
  }

  /** Creates a key and returns its one-time plain value with its record. */
  create(name: string, permissions: Permission[], projects: string[] | null = null): { key: string; info: ApiKeyInfo } {
    if (!name.trim()) throw new Error('A key needs a name');
    const key = `cati_${randomBytes(24).toString('base64url')}`;
    const now = Date.now();
    const info = this.db.transaction(() => {
      const { lastInsertRowid } = this.db
        .prepare('INSERT INTO api_keys (name, key_hash, prefix, permissions, projects, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(name.trim(), hashKey(key), key.slice(0, 9), permissions.join(','), projects?.join(',') ?? null, now);
      const created = this.get(Number(lastInsertRowid))!;
      // Never the key or its digest: the name, the visible prefix, what it may do.
      const changes = { name: created.name, prefix: created.prefix, permissions: created.permissions, projects: created.projects };
      recordAuditSync(this.db, { action: 'created', entity: 'keys', entityId: created.id, changes }, now);
      return created;
    }).immediate();
    return { key, info };
  }

  get(id: number): ApiKeyInfo | undefined {
    const row = this.db.prepare<[number], KeyRow>('SELECT * FROM api_keys WHERE id = ?').get(id);
    return row && toInfo(row);
  }

  list(): ApiKeyInfo[] {
    return this.db.prepare<[], KeyRow>('SELECT * FROM api_keys ORDER BY id').all().map(toInfo);
  }

  /** Revokes a key; returns false when no such active key exists. */
  revoke(id: number): boolean {
    return this.db.transaction(() => {
      const now = Date.now();
      if (this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id).changes === 0) return false;
      this.cache.clear();
      const { name, prefix } = this.get(id)!;
      recordAuditSync(this.db, { action: 'revoked', entity: 'keys', entityId: id, changes: { name, prefix, revokedAt: [null, new Date(now).toISOString()] } }, now);
      return true;
    }).immediate();
  }

  /**
   * Records when a key was last used, at most once a minute. Best effort: while another connection holds
   * the write lock (a bulk import), it skips instead of making the request wait on busy_timeout.
   */
  private markUsed(id: number, lastUsedAt: number | null): number | null {
    const now = Date.now();
    if (lastUsedAt !== null && lastUsedAt > now - 60_000) return lastUsedAt;
    // A skipped stamp is tried again on the key's next use.
    return writeIfIdle(this.db, () => this.touch.run(now, id, now - 60_000)) ? now : lastUsedAt;
  }

  /** The cached entry of a digest while it is fresh and no other connection has committed since it was read. */
  private cached(digest: string): CachedKey | undefined {
    const version = this.dataVersion.get()!;
    if (version !== this.cachedVersion) {
      this.cache.clear();
      this.cachedVersion = version;
      return undefined;
    }
    const entry = this.cache.get(digest);
    if (entry !== undefined && entry.until < Date.now()) {
      this.cache.delete(digest);
      return undefined;
    }
    return entry;
  }

  /** Resolves a presented key to its principal, or undefined when unknown or revoked. */
  authenticate(key: string): Principal | undefined {
    const digest = hashKey(key);
    const memory = this.memoryKeys.get(digest);
    if (memory !== undefined) return { keyId: null, name: memory.name, permissions: memory.permissions, projects: null };
    if (key.startsWith('uis_')) {
      const sessionId = this.ui.authenticate(key);
      return sessionId === null ? undefined : { keyId: null, name: `UI session ${sessionId}`, permissions: new Set(PERMISSIONS), projects: null, uiSessionId: sessionId };
    }
    const hit = this.cached(digest);
    if (hit !== undefined) {
      hit.lastUsedAt = this.markUsed(hit.principal.keyId!, hit.lastUsedAt);
      return hit.principal;
    }
    const row = this.byHash.get(digest);
    if (!row) return undefined;
    const principal: Principal = {
      keyId: row.id,
      name: row.name,
      permissions: new Set(row.permissions.split(',') as Permission[]),
      projects: row.projects ? row.projects.split(',') : null,
    };
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(digest, { principal, lastUsedAt: this.markUsed(row.id, row.last_used_at), until: Date.now() + CACHE_MS });
    return principal;
  }
}
