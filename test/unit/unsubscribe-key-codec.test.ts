import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyCodec, loadOrCreateSecret, SECRET_FILE, type UnsubscribePayload } from '../../server/unsubscribe/key-codec.ts';

const payload: UnsubscribePayload = { listId: 42, emailAddress: 'john.doe@example.com', projectId: 'p12345678' };
const codec = createKeyCodec(randomBytes(32));
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('unsubscribe key codec', () => {
  it('round-trips project and company payloads', () => {
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
    const company = { listId: 1, emailAddress: 'a@xn--mller-kva.de', projectId: null };
    expect(codec.decode(codec.encode(company))).toEqual(company);
  });

  it('makes opaque URL-safe keys that differ each time and do not reveal the address', () => {
    const a = codec.encode(payload);
    const b = codec.encode(payload);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    const raw = Buffer.from(a, 'base64url').toString('latin1');
    expect(raw).not.toContain('john');
    expect(raw).not.toContain('example');
    expect(a.length).toBeLessThan(120);
  });

  it('refuses a key with any single byte changed', () => {
    const raw = Buffer.from(codec.encode(payload), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const t = Buffer.from(raw);
        t[i]! ^= bit;
        expect(codec.decode(t.toString('base64url')), `byte ${i} bit ${bit}`).toBeNull();
      }
    }
  });

  it('refuses a key with any single character changed', () => {
    const key = codec.encode(payload);
    for (let i = 0; i < key.length; i++) {
      const other = ALPHABET[(ALPHABET.indexOf(key[i]!) + 1) % ALPHABET.length]!;
      expect(codec.decode(key.slice(0, i) + other + key.slice(i + 1)), `char ${i}`).toBeNull();
    }
  });

  it('refuses every truncation and an appended character', () => {
    const key = codec.encode(payload);
    for (let n = 0; n < key.length; n++) expect(codec.decode(key.slice(0, n)), `length ${n}`).toBeNull();
    expect(codec.decode(key + 'A')).toBeNull();
  });

  it('refuses a key made under another secret', () => {
    const foreign = createKeyCodec(randomBytes(32));
    expect(foreign.decode(codec.encode(payload))).toBeNull();
  });

  it('refuses malformed input', () => {
    for (const bad of ['', 'abc$', 'a b', '====', 'x'.repeat(5000), codec.encode(payload) + '=', `${codec.encode(payload)}%00`]) {
      expect(codec.decode(bad), JSON.stringify(bad.slice(0, 20))).toBeNull();
    }
    expect(codec.decode(undefined as unknown as string)).toBeNull();
  });

  it('refuses authentic keys whose payload is not a valid shape', () => {
    expect(codec.decode(codec.encode({ listId: 0, emailAddress: 'a@b.cd', projectId: null }))).toBeNull();
    expect(codec.decode(codec.encode({ listId: 1, emailAddress: '', projectId: null }))).toBeNull();
    expect(codec.decode(codec.encode({ listId: 1, emailAddress: 'a@b.cd', projectId: 'x1' }))).toBeNull();
  });
});

describe('installation secret', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'unsub-secret-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is created on first use with mode 0600 and 32 random bytes, then reused', () => {
    const dir = join(tempDir(), 'nested');
    const first = loadOrCreateSecret(dir);
    const file = join(dir, SECRET_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.length).toBe(32);
    expect(readFileSync(file).equals(first)).toBe(true);
    const second = loadOrCreateSecret(dir);
    expect(second.equals(first)).toBe(true);
    expect(createKeyCodec(second).decode(createKeyCodec(first).encode(payload))).toEqual(payload);
  });

  it('differs between installations', () => {
    expect(loadOrCreateSecret(tempDir()).equals(loadOrCreateSecret(tempDir()))).toBe(false);
  });

  it('refuses a damaged secret file instead of replacing it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, SECRET_FILE), 'short');
    expect(() => loadOrCreateSecret(dir)).toThrow(/exactly 32 bytes/);
    expect(readFileSync(join(dir, SECRET_FILE), 'utf8')).toBe('short');
  });
});
