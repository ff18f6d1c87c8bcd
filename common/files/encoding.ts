/**
 * Text encodings of an uploaded file (docs/files.md#encodings): UTF-8 with or without a byte-order mark,
 * UTF-16 LE/BE with a byte-order mark, and Windows-1252 when the bytes are not valid UTF-8 (what Excel's
 * "CSV" writes on a Western Windows). Pure: used by the server's streaming reader and the screens' preview.
 */

/** The encoding a file was read in, as a job or import answer names it. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** The encoding a byte-order mark at the start of `bytes` announces, and the mark's length; null without one. */
export function byteOrderMark(bytes: Uint8Array): { encoding: TextEncodingName; length: number } | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  return null;
}

/** A decoder of `encoding` that leaves a byte-order mark alone (the caller skips the first one itself). */
export function decoderOf(encoding: TextEncodingName): { decode(bytes?: Uint8Array, options?: { stream?: boolean }): string } {
  if (encoding === 'windows-1252') return { decode: (bytes) => (bytes ? decodeWindows1252(bytes) : '') };
  return new TextDecoder(encoding, { ignoreBOM: true });
}

/** The characters of bytes 0x80–0x9F in Windows-1252 (the rest are Latin-1's). */
const CP1252 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * Windows-1252 text of bytes, one character per byte (so a file may be decoded slice by slice). Written out
 * here because some runtimes' TextDecoder('windows-1252') decodes 0x80–0x9F as Latin-1 control characters.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  const step = 8192;
  const codes = new Uint16Array(Math.min(step, bytes.length));
  for (let i = 0; i < bytes.length; i += step) {
    const n = Math.min(step, bytes.length - i);
    for (let j = 0; j < n; j++) {
      const b = bytes[i + j]!;
      codes[j] = b >= 0x80 && b < 0xa0 ? CP1252[b - 0x80]! : b;
    }
    out += String.fromCharCode.apply(null, codes.subarray(0, n) as unknown as number[]);
  }
  return out;
}

/**
 * The text of `bytes` and the encoding it was read in. `complete` false: the bytes are a file's start, so a
 * character cut at their end is left out rather than taken for invalid UTF-8.
 */
export function decodeText(bytes: Uint8Array, complete = true): { text: string; encoding: TextEncodingName } {
  const bom = byteOrderMark(bytes);
  if (bom) return { text: decoderOf(bom.encoding).decode(bytes.subarray(bom.length), { stream: !complete }), encoding: bom.encoding };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: !complete }), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
}
