/**
 * User accounts (docs/audit.md#audit) over the `users` table: create, list, change, delete, each audited (entity
 * `users`, never with the password) in the transaction of the change. Locking a user or changing its password
 * ends all its sessions in that same transaction; the last unlocked administrator cannot be removed, demoted
 * or locked (409).
 */
import { randomBytes } from 'node:crypto';
import { recordAudit, diffChanges, runAs } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { conflict, notFound } from '../errors.ts';
import type { Language } from '../lib/languages.ts';
import { hashPassword } from './passwords.ts';
import type { Role } from './roles.ts';
import type { UiSessionStore } from './ui-sessions.ts';
import type { UserInfo } from '../../common/user-types.ts';
import type { NewUser, UserPatch } from './user-input.ts';

export type { UserInfo };

/** A stored user, with its password hash (for sign-in only). */
export interface UserRow {
  id: number;
  name: string;
  display_name: string;
  role: Role;
  password_hash: string;
  locked: number;
  created_at: number;
  last_login_at: number | null;
  language: Language | null;
}

/** The key that makes names unique without regard to case. */
export const nameKey = (name: string): string => name.normalize('NFC').toLowerCase();

const toInfo = (r: UserRow): UserInfo => ({
  UserId: r.id,
  Name: r.name,
  DisplayName: r.display_name,
  Role: r.role,
  Locked: r.locked !== 0,
  CreatedAt: new Date(r.created_at).toISOString(),
  LastLoginAt: r.last_login_at === null ? null : new Date(r.last_login_at).toISOString(),
  Language: r.language ?? null,
});

/** What the audit log shows of a user: everything but the password and the times. */
const audited = (u: UserInfo) => ({ Name: u.Name, DisplayName: u.DisplayName, Role: u.Role, Locked: u.Locked });

const isUnlockedAdmin = (u: UserInfo) => u.Role === 'administrator' && !u.Locked;

/**
 * 409 unless another unlocked administrator remains besides `id`. The no-op UPDATE first takes the row locks of
 * every unlocked administrator (PostgreSQL; SQLite's write transaction already excludes every other writer), so
 * two administrators demoting each other at once cannot both pass: the second waits, then counts afresh.
 */
async function assertAnotherAdministrator(tx: Queryable, id: number, what: string): Promise<void> {
  await tx.run("UPDATE users SET role = role WHERE role = 'administrator' AND locked = 0");
  const others = await tx.value<number>("SELECT count(*) FROM users WHERE role = 'administrator' AND locked = 0 AND id <> ?", [id]);
  if (Number(others) === 0) throw conflict(`${what} would leave no unlocked administrator: make another user an administrator first`);
}

export class UserStore {
  constructor(
    private readonly store: Store,
    private readonly sessions: UiSessionStore,
  ) {}

  /** Every user, by name. */
  async list(): Promise<UserInfo[]> {
    return (await this.store.all<UserRow>('SELECT * FROM users ORDER BY name_key')).map(toInfo);
  }

  /** One user by id. */
  async get(id: number, q: Queryable = this.store): Promise<UserInfo | undefined> {
    const row = await q.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
    return row && toInfo(row);
  }

  /** The stored row of a name (any case), for sign-in and the CLI. */
  byName(name: string, q: Queryable = this.store): Promise<UserRow | undefined> {
    return q.get<UserRow>('SELECT * FROM users WHERE name_key = ?', [nameKey(name)]);
  }

  /** Creates a user (409 when the name is taken in any case). */
  async create(input: NewUser, now = Date.now()): Promise<UserInfo> {
    const hash = await hashPassword(input.password);
    return this.store.transaction(async (tx) => {
      if (await this.byName(input.name, tx)) throw conflict(`A user named '${input.name}' already exists (names are unique without regard to case)`);
      const sql = `INSERT INTO users (name, name_key, display_name, role, password_hash, locked, created_at)
        VALUES (?, ?, ?, ?, ?, 0, ?) RETURNING id`;
      const id = (await tx.value<number>(sql, [input.name, nameKey(input.name), input.displayName ?? input.name, input.role, hash, now]))!;
      const user = (await this.get(id, tx))!;
      await recordAudit(tx, { action: 'created', entity: 'users', entityId: id, changes: audited(user) }, now);
      return user;
    });
  }

  /** Changes a user; undefined when there is none with that id. */
  async update(id: number, patch: UserPatch, now = Date.now()): Promise<UserInfo | undefined> {
    const hash = patch.password === undefined ? undefined : await hashPassword(patch.password);
    return this.store.transaction(async (tx) => {
      const before = await this.get(id, tx);
      if (!before) return undefined;
      const next = { ...audited(before), ...definedFields({ DisplayName: patch.displayName, Role: patch.role, Locked: patch.locked }) };
      if (isUnlockedAdmin(before) && !isUnlockedAdmin({ ...before, ...next })) {
        await assertAnotherAdministrator(tx, id, next.Locked ? `Locking ${before.Name}` : `Making ${before.Name} a ${next.Role}`);
      }
      await tx.run('UPDATE users SET display_name = ?, role = ?, locked = ? WHERE id = ?', [next.DisplayName, next.Role, next.Locked ? 1 : 0, id]);
      if (hash !== undefined) await tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, id]);
      const changes: Record<string, unknown> = diffChanges(audited(before), next);
      if (hash !== undefined) changes.Password = 'changed'; // that it changed, never what to
      const endsSessions = hash !== undefined || (next.Locked && !before.Locked);
      if (endsSessions) changes.SessionsEnded = await this.sessions.revokeAllOf(id, tx, now);
      if (Object.keys(changes).length > 0) {
        const keys = Object.keys(changes).filter((k) => k !== 'SessionsEnded');
        const action = keys.length === 1 && keys[0] === 'Locked' ? (next.Locked ? 'locked' : 'unlocked') : keys.length === 1 && keys[0] === 'Password' ? 'password changed' : 'updated';
        await recordAudit(tx, { action, entity: 'users', entityId: id, changes }, now);
      }
      return (await this.get(id, tx))!;
    });
  }

  /** Deletes a user (its sessions go with it); false when there is none with that id. */
  remove(id: number, now = Date.now()): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      const before = await this.get(id, tx);
      if (!before) return false;
      if (isUnlockedAdmin(before)) await assertAnotherAdministrator(tx, id, `Deleting ${before.Name}`);
      await tx.run('DELETE FROM users WHERE id = ?', [id]);
      await recordAudit(tx, { action: 'deleted', entity: 'users', entityId: id, changes: audited(before) }, now);
      return true;
    });
  }

  /** The user of a path id, or a 404. */
  async require(id: number): Promise<UserInfo> {
    const user = await this.get(id);
    if (!user) throw notFound(`No user with id ${id}`);
    return user;
  }

  /**
   * The desktop owner's account: the user named after the OS account (letters outside the name rules become `.`),
   * created as an administrator at first start with a random password the owner can reset in Settings → People.
   * Answers its id; an existing user of that name is used as it is (its role and lock stand).
   */
  async ensureOwner(osUserName: string): Promise<number> {
    const name = osUserName.normalize('NFC').replace(/[^\p{L}\p{M}\p{Nd}._-]/gu, '.').slice(0, 64) || 'owner';
    const existing = await this.byName(name);
    if (existing) return existing.id;
    const password = randomBytes(24).toString('base64url');
    const created = await runAs({ keyId: null, name: 'desktop app' }, () => this.create({ name, role: 'administrator', password }));
    return created.UserId;
  }

  /**
   * Sets a user's own language (null: none chosen), audited as an update of the user in the caller's name;
   * undefined when the user is gone.
   */
  setLanguage(id: number, language: Language | null, now = Date.now()): Promise<UserInfo | undefined> {
    return this.store.transaction(async (tx) => {
      const before = await this.get(id, tx);
      if (!before) return undefined;
      if (before.Language === language) return before;
      await tx.run('UPDATE users SET language = ? WHERE id = ?', [language, id]);
      await recordAudit(tx, { action: 'updated', entity: 'users', entityId: id, changes: { Language: [before.Language, language] } }, now);
      return (await this.get(id, tx))!;
    });
  }

  /** Stamps a successful sign-in (in the caller's transaction). */
  async stampLogin(tx: Queryable, id: number, now: number): Promise<void> {
    await tx.run('UPDATE users SET last_login_at = ? WHERE id = ?', [now, id]);
  }
}

/** The fields of `o` that are not undefined. */
function definedFields<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
