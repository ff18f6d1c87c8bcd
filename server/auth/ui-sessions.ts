import { recordAuditSync } from '../audit/audit-log.ts';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open.ts';
import { hashKey, writeIfIdle } from './key-hash.ts';

/** How long a UI link's token can be exchanged (CONTRACT §2: short-lived). */
export const UI_TOKEN_TTL_MS = 15 * 60_000;
/** A UI session expires after this long without use (CONTRACT §2). */
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
 * Both are random (256 bits) and stored as SHA-256 digests only.
 */
export class UiSessionStore {
  private readonly byHash;
  private readonly touch;

  constructor(private readonly db: Db) {
    this.byHash = db.prepare<[string], SessionRow>('SELECT id, created_at, last_used_at, revoked_at FROM ui_sessions WHERE key_hash = ?');
    this.touch = db.prepare('UPDATE ui_sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?');
  }

  /** Mints a single-use token for a UI link (and forgets expired ones). */
  mintToken(now = Date.now()): string {
    const token = `uit_${randomBytes(32).toString('base64url')}`;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM ui_tokens WHERE expires_at <= ?').run(now);
      this.db.prepare('INSERT INTO ui_tokens (token_hash, created_at, expires_at) VALUES (?, ?, ?)').run(hashKey(token), now, now + UI_TOKEN_TTL_MS);
    })();
    return token;
  }

  /** Spends a token: a new session key when the token is known and fresh, else null. A token works once. */
  exchange(token: string, now = Date.now()): { key: string; info: UiSessionInfo } | null {
    return this.db.transaction(() => {
      const row = this.db
        .prepare<[string], { expires_at: number }>('DELETE FROM ui_tokens WHERE token_hash = ? RETURNING expires_at')
        .get(hashKey(token));
      if (!row || row.expires_at <= now) return null;
      const key = `uis_${randomBytes(32).toString('base64url')}`;
      const { lastInsertRowid } = this.db
        .prepare('INSERT INTO ui_sessions (key_hash, created_at, last_used_at) VALUES (?, ?, ?)')
        .run(hashKey(key), now, now);
      const id = Number(lastInsertRowid);
      // A UI session is a key (CONTRACT §10): its creation is audited, the new session as its own actor.
      recordAuditSync(this.db, { action: 'created', entity: 'keys', entityId: `ui-session-${id}`, changes: { uiSession: id } }, now, {
        keyId: null,
        name: `UI session ${id}`,
      });
      return { key, info: this.get(id)! };
    }).immediate();
  }

  /** The session id of a live session key (and marks it used), or null when unknown, revoked or idle too long. */
  authenticate(key: string, now = Date.now()): number | null {
    const row = this.byHash.get(hashKey(key));
    if (!row || row.revoked_at !== null || row.last_used_at + UI_SESSION_IDLE_MS <= now) return null;
    if (row.last_used_at <= now - TOUCH_EVERY_MS) writeIfIdle(this.db, () => this.touch.run(now, row.id, now - TOUCH_EVERY_MS));
    return row.id;
  }

  get(id: number): UiSessionInfo | undefined {
    const row = this.db.prepare<[number], SessionRow>('SELECT id, created_at, last_used_at, revoked_at FROM ui_sessions WHERE id = ?').get(id);
    return row && toInfo(row);
  }

  /** Live sessions (neither revoked nor expired), newest first. */
  listLive(now = Date.now()): UiSessionInfo[] {
    return this.db
      .prepare<[number], SessionRow>(
        'SELECT id, created_at, last_used_at, revoked_at FROM ui_sessions WHERE revoked_at IS NULL AND last_used_at > ? ORDER BY id DESC',
      )
      .all(now - UI_SESSION_IDLE_MS)
      .map(toInfo);
  }

  /** Revokes a live session; false when none has that id. */
  revoke(id: number, now = Date.now()): boolean {
    const stmt = this.db.prepare('UPDATE ui_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND last_used_at > ?');
    return this.db.transaction(() => stmt.run(now, id, now - UI_SESSION_IDLE_MS).changes > 0)();
  }
}
