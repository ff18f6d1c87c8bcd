import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an unsubscribe key carries (docs/unsubscribe.md#keys). */
export interface UnsubscribePayload {
  listId: number;
  /** The normalised address (as stored in the list). */
  emailAddress: string;
  /** Project the mail was sent for; becomes the entry's `unsubscribedFrom`. */
  projectId: string | null;
}

export interface KeyCodec {
  /** Encrypts a payload into an opaque URL-safe key. */
  encode(payload: UnsubscribePayload): string;
  /** The payload of a key made under this secret, or null for anything else (never says why). */
  decode(key: string): UnsubscribePayload | null;
}

/** File in the data dir holding the 32-byte installation secret. */
export const SECRET_FILE = 'unsubscribe.secret';

/**
 * Key layout, base64url without padding:
 *   version (1 byte, 0x01) | IV (12 random bytes) | AES-256-GCM ciphertext | tag (16 bytes).
 * The version byte is authenticated as AAD; a later secret rotation adds version 0x02 and keeps
 * decoding 0x01 with the old secret. Plaintext is compact JSON `[listId, emailAddress, projectId]`.
 */
const VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SECRET_BYTES = 32;
/** Longest key accepted: a 254-character address plus overhead fits well below this. */
const MAX_KEY_CHARS = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PROJECT_ID = /^p\d+$/;

/**
 * Reads `<dataDir>/unsubscribe.secret`, creating it (32 random bytes, mode 0600) on first start.
 * A file of the wrong size is an error, never silently replaced (that would void every key sent out).
 */
export function loadOrCreateSecret(dataDir: string): Buffer {
  const file = join(dataDir, SECRET_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(SECRET_BYTES), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  const secret = readFileSync(file);
  if (secret.length !== SECRET_BYTES) {
    throw new Error(`${file} must hold exactly ${SECRET_BYTES} bytes (found ${secret.length}); restore it from a backup or delete it to create a new one (old unsubscribe links then stop working)`);
  }
  return secret;
}

/** A codec bound to one 32-byte secret. */
export function createKeyCodec(secret: Buffer): KeyCodec {
  if (secret.length !== SECRET_BYTES) throw new Error(`The unsubscribe secret must be ${SECRET_BYTES} bytes`);
  const aad = Buffer.from([VERSION]);
  return {
    encode(payload) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', secret, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const plain = Buffer.from(JSON.stringify([payload.listId, payload.emailAddress, payload.projectId]), 'utf8');
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([aad, iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    decode(key) {
      if (typeof key !== 'string' || key.length > MAX_KEY_CHARS || !BASE64URL.test(key)) return null;
      const raw = Buffer.from(key, 'base64url');
      // Canonical form only: otherwise the unused low bits of the last character could vary.
      if (raw.toString('base64url') !== key) return null;
      if (raw.length < 1 + IV_BYTES + 1 + TAG_BYTES || raw[0] !== VERSION) return null;
      const iv = raw.subarray(1, 1 + IV_BYTES);
      const tag = raw.subarray(raw.length - TAG_BYTES);
      const body = raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES);
      let plain: Buffer;
      try {
        const decipher = createDecipheriv('aes-256-gcm', secret, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        plain = Buffer.concat([decipher.update(body), decipher.final()]);
      } catch {
        return null;
      }
      return parsePayload(plain);
    },
  };
}

/** Opens the codec of an installation: the secret in its data dir. */
export function openKeyCodec(dataDir: string): KeyCodec {
  return createKeyCodec(loadOrCreateSecret(dataDir));
}

function parsePayload(plain: Buffer): UnsubscribePayload | null {
  let value: unknown;
  try {
    value = JSON.parse(plain.toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [listId, emailAddress, projectId] = value as unknown[];
  if (typeof listId !== 'number' || !Number.isSafeInteger(listId) || listId < 1) return null;
  if (typeof emailAddress !== 'string' || emailAddress.length === 0 || emailAddress.length > 254) return null;
  if (projectId !== null && (typeof projectId !== 'string' || !PROJECT_ID.test(projectId))) return null;
  return { listId, emailAddress, projectId };
}
