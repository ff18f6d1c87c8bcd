/**
 * The rules of user input (docs/people.md#users), shared by `/admin/users` and `npm run users`: every problem is a 400
 * that names the field, and nothing is stored.
 */
import { badRequest } from '../errors.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.ts';
import { isRole, ROLES, type Role } from './roles.ts';

/** 1–64 letters, digits, `.`, `_`, `-`. */
const NAME = /^[\p{L}\p{M}\p{Nd}._-]{1,64}$/u;
export const DISPLAY_NAME_MAX = 100;

export interface NewUser {
  name: string;
  displayName?: string;
  role: Role;
  password: string;
}

export interface UserPatch {
  displayName?: string;
  role?: Role;
  locked?: boolean;
  password?: string;
}

/** A user name by the rules (NFC), or a 400 naming `Name`. */
export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw badRequest("'Name' must be a string of 1–64 letters, digits, '.', '_' or '-'");
  const name = value.normalize('NFC');
  if (!NAME.test(name)) throw badRequest(`'Name' must be 1–64 letters, digits, '.', '_' or '-' (no spaces), not '${name.slice(0, 80)}'`);
  return name;
}

/** A role name, or a 400 naming `Role`. */
export function checkRole(value: unknown): Role {
  if (!isRole(value)) throw badRequest(`'Role' must be one of ${ROLES.join(', ')}, not ${JSON.stringify(value)?.slice(0, 80)}`);
  return value;
}

/** A password of 12 to 1024 characters, or a 400 naming `Password` (never echoing it). */
export function checkPassword(value: unknown): string {
  if (typeof value !== 'string') throw badRequest("'Password' must be a string");
  const length = [...value].length;
  if (length < PASSWORD_MIN) throw badRequest(`'Password' must be at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX) throw badRequest(`'Password' must be at most ${PASSWORD_MAX} characters`);
  return value;
}

function checkDisplayName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw badRequest("'DisplayName' must be a non-empty string");
  const name = value.trim();
  if ([...name].length > DISPLAY_NAME_MAX) throw badRequest(`'DisplayName' must be at most ${DISPLAY_NAME_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest("'DisplayName' must not contain control characters");
  return name;
}

function objectBody(body: unknown, accepted: readonly string[]): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`The request body must be a JSON object with ${accepted.join(', ')}`);
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !accepted.includes(k));
  if (unknown !== undefined) throw badRequest(`Unknown or read-only field '${unknown.slice(0, 80)}' (accepted: ${accepted.join(', ')})`);
  return fields;
}

/** A `POST /admin/users` body: `{Name, Role, Password, DisplayName?}`. */
export function parseNewUser(body: unknown): NewUser {
  const f = objectBody(body, ['Name', 'DisplayName', 'Role', 'Password']);
  const name = checkName(f.Name);
  const role = checkRole(f.Role);
  const password = checkPassword(f.Password);
  const displayName = f.DisplayName === undefined || f.DisplayName === null ? undefined : checkDisplayName(f.DisplayName);
  return { name, role, password, displayName };
}

/** A `PATCH /admin/users/{UserId}` body: any of `DisplayName`, `Role`, `Locked`, `Password`. */
export function parseUserPatch(body: unknown): UserPatch {
  const f = objectBody(body, ['DisplayName', 'Role', 'Locked', 'Password']);
  const patch: UserPatch = {};
  if (f.DisplayName !== undefined) patch.displayName = checkDisplayName(f.DisplayName);
  if (f.Role !== undefined) patch.role = checkRole(f.Role);
  if (f.Locked !== undefined) {
    if (typeof f.Locked !== 'boolean') throw badRequest("'Locked' must be true or false");
    patch.locked = f.Locked;
  }
  if (f.Password !== undefined) patch.password = checkPassword(f.Password);
  return patch;
}
