/**
 * Password hashing for user accounts (CONTRACT §15): scrypt from node:crypto, salted, memory-hard, run on libuv's
 * thread pool so the event loop stays free. Stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can
 * be raised later without invalidating stored hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Cost parameters (OWASP's scrypt row N=2^14, r=8, p=5: 16 MiB per hash). */
const COST = { N: 2 ** 14, r: 8, p: 5 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Shortest password accepted (CONTRACT §15). */
export const PASSWORD_MIN = 12;
/** Longest password accepted (scrypt reads all of it; a megabyte would only cost time). */
export const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A salted scrypt hash of `password`, as stored. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether `password` matches a stored hash; a malformed hash matches nothing (after the same work). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  const cost = m ? { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : COST;
  const salt = m ? Buffer.from(m[4]!, 'base64url') : randomBytes(SALT_BYTES);
  const expected = m ? Buffer.from(m[5]!, 'base64url') : randomBytes(KEY_BYTES);
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
