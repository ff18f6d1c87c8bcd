import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { hashKey, writeIfIdle } from './key-hash.ts';
import { PERMISSIONS, type ApiKeyInfo, type Permission } from '../../common/key-types.ts';
import { ROLE_GRANTS } from './roles.ts';
import { UiSessionStore, type SessionUser } from './ui-sessions.ts';
import { UserStore, type UserRow } from './users.ts';

export { hashKey } from './key-hash.ts';

export { PERMISSIONS, type ApiKeyInfo, type Permission } from '../../common/key-types.ts';

/** What an authenticated request may do. */
export interface Principal {
  keyId: number | null; // null: the in-memory CATI_API_KEY
  name: string;
  permissions: ReadonlySet<Permission>;
  /** Project ids that limit optout_administrate; null = every project. */
  projects: readonly string[] | null;
  /** Set when the key is a UI session key (the headless UI link's, or a user's sign-in). */
  uiSessionId?: number;
  /** Set when a person signed in (a user's session, or the desktop owner's window): the role decides the rest. */
  user?: SessionUser;
  /** Reads (GET) of project opt-out lists without optout_administrate (the viewer role). */
  optoutRead?: boolean;
}

/** The principal of a user's session: the role's permissions, the user's name as the actor. */
export function userPrincipal(user: SessionUser, uiSessionId?: number): Principal {
  const grant = ROLE_GRANTS[user.role];
  return { keyId: null, name: user.name, permissions: new Set(grant.permissions), projects: null, user, optoutRead: grant.optoutRead, uiSessionId };
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

/** How long an authenticated key is served from memory before the database is asked again. */
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
 * Tells the key cache that keys may have been revoked by another process without a query: on PostgreSQL the
 * event bridge's listener, which hears the NOTIFY of migration 021's trigger on every revocation.
 */
export interface KeyChangeSignal {
  /** Moves on every announced revocation and every reconnection of the listener; undefined while it cannot hear. */
  readonly keyVersion: number | undefined;
  /** Resolves once every server's listener has heard of a revocation just committed, or after `timeoutMs`. */
  revocationHeard(timeoutMs: number): Promise<void>;
}

/** How long a revocation waits for every server to hear of it before it answers (a listener is slow or away). */
const ANNOUNCED_WITHIN_MS = 2000;

/**
 * API-key store over the `api_keys` table. An authenticated key is cached by digest for a few seconds, and
 * revocation stays immediate: `revoke` here empties the cache, and a revocation through any other connection
 * or server process changes `revocationVersion`, which is checked on every request.
 */
export class ApiKeyStore {
  private readonly cache = new Map<string, CachedKey>();
  private cachedVersion = '';
  private signal: KeyChangeSignal | undefined;
  /** Moves on every clearing, so a lookup that overlapped a revocation does not put its stale answer in the cache. */
  private generation = 0;
  /** Keys held in memory for this run only (CATI_API_KEY, the UI session key), by digest. */
  private readonly memoryKeys = new Map<string, { name: string; permissions: ReadonlySet<Permission>; userId?: number }>();
  /** The headless UI link's tokens and session keys (docs/people.md#ui-sessions), and users' sign-in sessions (docs/people.md#users). */
  readonly ui: UiSessionStore;
  /** User accounts (docs/people.md#users). */
  readonly users: UserStore;

  constructor(private readonly store: Store) {
    this.ui = new UiSessionStore(store);
    this.users = new UserStore(store, this.ui);
  }

  /** Listens to `signal` instead of asking the database on every request whether a key was revoked elsewhere. */
  useKeyChangeSignal(signal: KeyChangeSignal): void {
    this.signal = signal;
  }

  /**
   * What changes whenever a key may have been revoked by someone else, read on every request before the cache is
   * trusted: the signal's version while it hears (PostgreSQL's announcements, no query); else the store's change
   * version (SQLite's data_version: it moves on any commit by another connection, such as the `keys revoke` CLI on
   * the same data dir, and reads no table); else the number of revoked keys, which only grows (a revoked key never
   * comes back, keys are never deleted) — one small read. Tagged by source, so a change of source clears the cache.
   */
  private async revocationVersion(): Promise<string> {
    const heard = this.signal?.keyVersion;
    if (heard !== undefined) return `heard ${heard}`;
    const data = await this.store.changeVersion();
    if (data !== null) return `data ${data}`;
    return `revoked ${await this.store.value<number>('SELECT count(revoked_at) FROM api_keys')}`;
  }

  /** Accepts `key` (with every permission unless limited) for this run only; it is never written to the database. */
  addMemoryKey(key: string, name: string, permissions: readonly Permission[] = PERMISSIONS): void {
    this.memoryKeys.set(hashKey(key), { name, permissions: new Set(permissions) });
  }

  /**
   * Creates a random in-memory key (the desktop window's, handed over the preload bridge): signed in as the user
   * `userId` when given (its role, read on every request; refused once the user is locked or deleted), else with
   * every permission.
   */
  createSessionKey(userId?: number): string {
    const key = `session_${randomBytes(24).toString('base64url')}`;
    this.memoryKeys.set(hashKey(key), { name: 'UI session', permissions: new Set(PERMISSIONS), userId });
    return key;
  }

  /** Creates a key and returns its one-time plain value with its record. */
  async create(name: string, permissions: Permission[], projects: string[] | null = null): Promise<{ key: string; info: ApiKeyInfo }> {
    if (!name.trim()) throw new Error('A key needs a name');
    const key = `cati_${randomBytes(24).toString('base64url')}`;
    const now = Date.now();
    const info = await this.store.transaction(async (tx) => {
      const id = (await tx.value<number>(
        'INSERT INTO api_keys (name, key_hash, prefix, permissions, projects, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
        [name.trim(), hashKey(key), key.slice(0, 9), permissions.join(','), projects?.join(',') ?? null, now],
      ))!;
      const created = (await this.get(id, tx))!;
      // Never the key or its digest: the name, the visible prefix, what it may do.
      const changes = { name: created.name, prefix: created.prefix, permissions: created.permissions, projects: created.projects };
      await recordAudit(tx, { action: 'created', entity: 'keys', entityId: created.id, changes }, now);
      return created;
    });
    return { key, info };
  }

  /** One stored key by id (revoked ones too). */
  async get(id: number, q: Queryable = this.store): Promise<ApiKeyInfo | undefined> {
    const row = await q.get<KeyRow>('SELECT * FROM api_keys WHERE id = ?', [id]);
    return row && toInfo(row);
  }

  /** Every stored key, oldest first. */
  async list(): Promise<ApiKeyInfo[]> {
    return (await this.store.all<KeyRow>('SELECT * FROM api_keys ORDER BY id')).map(toInfo);
  }

  /**
   * Revokes a key; returns false when no such active key exists. With a signal (PostgreSQL), it answers once every
   * server's listener has heard of it, so a client that hears "revoked" and turns to another server finds the key
   * refused there too (docs/people.md#keys: at once; docs/deployment.md#postgresql).
   */
  async revoke(id: number): Promise<boolean> {
    const revoked = await this.store.transaction(async (tx) => {
      const now = Date.now();
      if ((await tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, id])).changes === 0) return false;
      this.clearCache();
      const { name, prefix } = (await this.get(id, tx))!;
      await recordAudit(tx, { action: 'revoked', entity: 'keys', entityId: id, changes: { name, prefix, revokedAt: [null, new Date(now).toISOString()] } }, now);
      return true;
    });
    if (revoked && this.signal) await this.signal.revocationHeard(ANNOUNCED_WITHIN_MS);
    return revoked;
  }

  /** Records when a key was last used, at most once a minute, best effort (see `writeIfIdle`). */
  private async markUsed(id: number, lastUsedAt: number | null): Promise<number | null> {
    const now = Date.now();
    if (lastUsedAt !== null && lastUsedAt > now - 60_000) return lastUsedAt;
    // A skipped stamp is tried again on the key's next use.
    const sql = 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)';
    return (await writeIfIdle(this.store, sql, [now, id, now - 60_000])) ? now : lastUsedAt;
  }

  private clearCache(): void {
    this.cache.clear();
    this.generation++;
  }

  /** The cached entry of a digest while it is fresh and no key has been revoked elsewhere since it was read. */
  private async cached(digest: string): Promise<CachedKey | undefined> {
    const version = await this.revocationVersion();
    if (version !== this.cachedVersion) {
      this.clearCache();
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
  async authenticate(key: string): Promise<Principal | undefined> {
    const digest = hashKey(key);
    const memory = this.memoryKeys.get(digest);
    if (memory?.userId !== undefined) {
      const row = await this.store.get<UserRow>('SELECT * FROM users WHERE id = ?', [memory.userId]);
      return !row || row.locked !== 0 ? undefined : userPrincipal({ id: row.id, name: row.name, displayName: row.display_name, role: row.role });
    }
    if (memory !== undefined) return { keyId: null, name: memory.name, permissions: memory.permissions, projects: null };
    if (key.startsWith('uis_')) {
      const session = await this.ui.authenticate(key);
      if (session === null) return undefined;
      if (session.user !== null) return userPrincipal(session.user, session.id);
      return { keyId: null, name: `UI session ${session.id}`, permissions: new Set(PERMISSIONS), projects: null, uiSessionId: session.id, optoutRead: true };
    }
    const hit = await this.cached(digest);
    if (hit !== undefined) {
      hit.lastUsedAt = await this.markUsed(hit.principal.keyId!, hit.lastUsedAt);
      return hit.principal;
    }
    const generation = this.generation;
    const row = await this.store.get<KeyRow>('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', [digest]);
    if (!row) return undefined;
    const principal: Principal = {
      keyId: row.id,
      name: row.name,
      permissions: new Set(row.permissions.split(',') as Permission[]),
      projects: row.projects ? row.projects.split(',') : null,
    };
    const lastUsedAt = await this.markUsed(row.id, row.last_used_at);
    if (generation !== this.generation) return principal; // valid when read; not cached past a revocation
    if (this.cache.size >= CACHE_MAX) this.clearCache();
    this.cache.set(digest, { principal, lastUsedAt, until: Date.now() + CACHE_MS });
    return principal;
  }
}
