/**
 * Password hashing for user accounts (docs/people.md#users): scrypt from node:crypto, salted, memory-hard, run on libuv's
 * thread pool so the event loop stays free. Stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can
 * be raised later without invalidating stored hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

type Cost = { readonly N: number; readonly r: number; readonly p: number };

/** Cost parameters of user accounts (OWASP's scrypt row N=2^14, r=8, p=5: 16 MiB per hash). */
const COST: Cost = { N: 2 ** 14, r: 8, p: 5 };

/**
 * Cost parameters of interviewer passwords (docs/cati-api.md#semantics: stored as a salted slow hash, never returned, never checked
 * by this server: the dialer's own sign-in is not this API). N=2^14, r=8, p=1, as they have been stored from the
 * start: a fifth of a user's cost, as an interviewer import hashes a password per row.
 */
export const INTERVIEWER_COST: Cost = { N: 2 ** 14, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Shortest password accepted (docs/people.md#users). */
export const PASSWORD_MIN = 12;
/** Longest password accepted (scrypt reads all of it; a megabyte would only cost time). */
export const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A salted scrypt hash of `password`, as stored (a user's cost unless told). */
export async function hashPassword(password: string, cost: Cost = COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * Whether `password` matches a stored hash; a malformed hash matches nothing (after the same work). Salt and hash
 * may be base64url or, as interviewer passwords were stored before, base64 (Node's base64 decoder reads both).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_+/=-]+)\$([A-Za-z0-9_+/=-]+)$/.exec(stored);
  const cost = m ? { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : COST;
  const salt = m ? Buffer.from(m[4]!, 'base64') : randomBytes(SALT_BYTES);
  const expected = m ? Buffer.from(m[5]!, 'base64') : randomBytes(KEY_BYTES);
  const key = await derive(password, salt, cost);
  return m !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random password, made once: checking a password against it for a name that does not exist costs
 * what checking a real user's does, so the answer's timing does not tell whether the name exists.
 */
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword(randomBytes(16).toString('base64url')));
}
