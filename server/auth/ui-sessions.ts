import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { hashKey, writeIfIdle } from './key-hash.ts';
import type { Role } from './roles.ts';

/** How long a UI link's token can be exchanged (docs/people.md#ui-sessions: short-lived). */
export const UI_TOKEN_TTL_MS = 15 * 60_000;
/** A UI session expires after this long without use (docs/people.md#ui-sessions). */
export const UI_SESSION_IDLE_MS = 12 * 60 * 60_000;
/** last_used_at is written at most this often per session (it bounds the idle expiry's precision). */
const TOUCH_EVERY_MS = 60_000;

/** A UI session as `GET /admin/ui-sessions` shows it (never the key). */
export interface UiSessionInfo {
  id: number;
  createdAt: string;
  lastUsedAt: string;
  /** When it expires unless used before. */
  expiresAt: string;
  revokedAt: string | null;
}

interface SessionRow {
  id: number;
  created_at: number;
  last_used_at: number;
  revoked_at: number | null;
}

const SELECT_SESSION = 'SELECT id, created_at, last_used_at, revoked_at FROM ui_sessions';

/** The user a session belongs to, as read on every request (a role change applies at once). */
export interface SessionUser {
  id: number;
  name: string;
  displayName: string;
  role: Role;
}

/** A live session: its id, and its user (null: the UI link's session). */
export interface LiveSession {
  id: number;
  user: SessionUser | null;
}

interface AuthRow {
  id: number;
  last_used_at: number;
  revoked_at: number | null;
  user_id: number | null;
  name: string | null;
  display_name: string | null;
  role: Role | null;
  locked: number | null;
}

const SELECT_AUTH = `SELECT s.id, s.last_used_at, s.revoked_at, s.user_id, u.name, u.display_name, u.role, u.locked
  FROM ui_sessions s LEFT JOIN users u ON u.id = s.user_id WHERE s.key_hash = ?`;

const iso = (ms: number) => new Date(ms).toISOString();
const toInfo = (r: SessionRow): UiSessionInfo => ({
  id: r.id,
  createdAt: iso(r.created_at),
  lastUsedAt: iso(r.last_used_at),
  expiresAt: iso(r.last_used_at + UI_SESSION_IDLE_MS),
  revokedAt: r.revoked_at === null ? null : iso(r.revoked_at),
});

/**
 * The UI link's tokens and the session keys they are exchanged for, over `ui_tokens` / `ui_sessions`.
 * Tokens (`uit_…`) are single-use and live 15 minutes; session keys (`uis_…`) expire after 12 hours idle.
 * Both are random (256 bits) and stored as SHA-256 digests only. A user's sign-in (`POST /auth/login`) opens the
 * same kind of session with its user named; nothing is cached, so a revocation (sign-out, lock, password change,
 * by this process, the CLI or another server on the same database) is refused on the very next request.
 */
export class UiSessionStore {
  constructor(private readonly store: Store) {}

  /** Mints a single-use token for a UI link (and forgets expired ones). */
  async mintToken(now = Date.now()): Promise<string> {
    const token = `uit_${randomBytes(32).toString('base64url')}`;
    await this.store.transaction(async (tx) => {
      await tx.run('DELETE FROM ui_tokens WHERE expires_at <= ?', [now]);
      await tx.run('INSERT INTO ui_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)', [hashKey(token), now, now + UI_TOKEN_TTL_MS]);
    });
    return token;
  }

  /** Spends a token: a new session key when the token is known and fresh, else null. A token works once. */
  exchange(token: string, now = Date.now()): Promise<{ key: string; info: UiSessionInfo } | null> {
    return this.store.transaction(async (tx) => {
      const expiresAt = await tx.value<number>('DELETE FROM ui_tokens WHERE token_hash = ? RETURNING expires_at', [hashKey(token)]);
      if (expiresAt === undefined || expiresAt <= now) return null;
      const { key, id } = await this.open(tx, null, now);
      // A sign-in (docs/audit.md#audit: entity `sessions`), the new session as its own actor.
      await recordAudit(tx, { action: 'login', entity: 'sessions', entityId: id, changes: { Kind: 'ui-link' } }, now, {
        keyId: null,
        name: `UI session ${id}`,
      });
      return { key, info: (await this.get(id, tx))! };
    });
  }

  /** Opens a session (of `userId`, or the UI link's when null) in the caller's transaction; answers its key once. */
  async open(tx: Queryable, userId: number | null, now = Date.now()): Promise<{ key: string; id: number; info: UiSessionInfo }> {
    const key = `uis_${randomBytes(32).toString('base64url')}`;
    const sql = 'INSERT INTO ui_sessions (key_hash, created_at, last_used_at, user_id) VALUES (?, ?, ?, ?) RETURNING id';
    const id = (await tx.value<number>(sql, [hashKey(key), now, now, userId]))!;
    return { key, id, info: (await this.get(id, tx))! };
  }

  /** Ends every live session of a user at once (lock, password change), in the caller's transaction. */
  async revokeAllOf(userId: number, q: Queryable, now = Date.now()): Promise<number> {
    return (await q.run('UPDATE ui_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [now, userId])).changes;
  }

  /**
   * The live session of a key (and marks it used), or null when unknown, revoked, idle too long, or its user
   * is locked (a lock also revokes its sessions; this holds even for a session opened while the lock committed).
   */
  async authenticate(key: string, now = Date.now()): Promise<LiveSession | null> {
    const row = await this.store.get<AuthRow>(SELECT_AUTH, [hashKey(key)]);
    if (!row || row.revoked_at !== null || row.last_used_at + UI_SESSION_IDLE_MS <= now) return null;
    if (row.user_id !== null && (row.locked !== 0 || row.name === null)) return null;
    if (row.last_used_at <= now - TOUCH_EVERY_MS) {
      await writeIfIdle(this.store, 'UPDATE ui_sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?', [now, row.id, now - TOUCH_EVERY_MS]);
    }
    const user = row.user_id === null ? null : { id: row.user_id, name: row.name!, displayName: row.display_name!, role: row.role! };
    return { id: row.id, user };
  }

  /** One session by id (revoked and expired ones too). */
  async get(id: number, q: Queryable = this.store): Promise<UiSessionInfo | undefined> {
    const row = await q.get<SessionRow>(`${SELECT_SESSION} WHERE id = ?`, [id]);
    return row && toInfo(row);
  }

  /** Live sessions (neither revoked nor expired), newest first. */
  async listLive(now = Date.now()): Promise<UiSessionInfo[]> {
    const rows = await this.store.all<SessionRow>(`${SELECT_SESSION} WHERE revoked_at IS NULL AND last_used_at > ? ORDER BY id DESC`, [now - UI_SESSION_IDLE_MS]);
    return rows.map(toInfo);
  }

  /** Revokes a live session (in the caller's transaction `q` when given); false when none has that id. */
  async revoke(id: number, now = Date.now(), q: Queryable = this.store): Promise<boolean> {
    const { changes } = await q.run('UPDATE ui_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND last_used_at > ?', [
      now,
      id,
      now - UI_SESSION_IDLE_MS,
    ]);
    return changes > 0;
  }
}
