/**
 * The text of a file on disk, chunk by chunk, in the encoding its bytes show (docs/files.md#encodings): a
 * byte-order mark names UTF-8 or UTF-16 LE/BE; without one the file is UTF-8 when every byte of it is valid
 * UTF-8 (checked in one pass before the first chunk goes out), else Windows-1252.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { byteOrderMark, decoderOf, type TextEncodingName } from '../../common/files/encoding.ts';

/** Bytes read at a time. */
export const CHUNK_BYTES = 1 << 20;

/** A file's encoding and how many bytes of byte-order mark it starts with. */
export interface TextSource {
  encoding: TextEncodingName;
  skip: number;
}

/** The file's bytes in slices of `size` read into one buffer (each slice valid until the next), closed when iteration ends. */
function* slices(path: string, size: number): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(size);
    for (let n = readSync(fd, buffer, 0, size, null); n > 0; n = readSync(fd, buffer, 0, size, null)) yield buffer.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Where a UTF-8 sequence cut by the slice's end starts (the slice's length when none is cut). */
function completeUpTo(b: Uint8Array): number {
  for (let i = b.length - 1, k = 0; i >= 0 && k < 4; i--, k++) {
    const c = b[i]!;
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return i + need > b.length ? i : b.length;
  }
  return b.length;
}

/** True when every byte of the file is valid UTF-8 (read slice by slice, never whole). */
function fileIsUtf8(path: string, size: number): boolean {
  let carry: Buffer | null = null;
  for (let slice of slices(path, size)) {
    if (carry) slice = Buffer.concat([carry, slice]);
    if (carry === null && isAscii(slice)) continue;
    const cut = completeUpTo(slice);
    if (!isUtf8(slice.subarray(0, cut))) return false;
    carry = cut < slice.length ? Buffer.from(slice.subarray(cut)) : null;
  }
  return carry === null;
}

/** The encoding of a text file on disk. */
export function textSource(path: string, sliceBytes = CHUNK_BYTES): TextSource {
  const head = slices(path, 4).next().value;
  const bom = head ? byteOrderMark(head) : null;
  if (bom) return { encoding: bom.encoding, skip: bom.length };
  return { encoding: fileIsUtf8(path, sliceBytes) ? 'utf-8' : 'windows-1252', skip: 0 };
}

/**
 * The decoded text of a file, chunk by chunk (about 1 MiB each), the byte-order mark left out. An ASCII chunk
 * of a UTF-8 or Windows-1252 file is read as Latin-1 (the same characters, several times faster than the
 * streaming decoder) while the decoder holds nothing back.
 */
export function* textChunks(path: string, source: TextSource, sliceBytes = CHUNK_BYTES): Generator<string> {
  const decoder = decoderOf(source.encoding);
  const singleByteOk = source.encoding === 'utf-8' || source.encoding === 'windows-1252'; // ASCII is ASCII in both
  let clean = true; // the decoder holds no bytes back
  let skip = source.skip;
  for (let slice of slices(path, sliceBytes)) {
    if (skip > 0) {
      const cut = Math.min(skip, slice.length);
      slice = slice.subarray(cut);
      skip -= cut;
    }
    if (singleByteOk && clean && isAscii(slice)) {
      if (slice.length > 0) yield slice.toString('latin1');
      continue;
    }
    const text = decoder.decode(slice, { stream: true });
    clean = source.encoding === 'windows-1252' || completeUpTo(slice) === slice.length;
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}
