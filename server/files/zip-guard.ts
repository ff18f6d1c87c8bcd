/**
 * Zip-bomb guard for untrusted .xlsx files. Before anything is inflated, the central directory is
 * read and checked: entry count, total declared size, per-entry compression ratio, methods, encryption,
 * ZIP64, and whether any two entries share bytes (the "overlapping entries" bomb). Then every entry is
 * inflated by zlib with an output cap equal to its declared size, and the result is repacked as an uncompressed
 * (stored) zip: the xlsx library never inflates anything itself, so it cannot allocate past these limits.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { FileError } from './file-error.ts';

/** What an .xlsx may hold before it is refused. */
export const ZIP_LIMITS = {
  maxEntries: 1000,
  /** Sum of the entries' uncompressed sizes. */
  maxTotalBytes: 256 * 1024 * 1024,
  /** Uncompressed / compressed, checked for entries above `ratioFloorBytes`. */
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
};

/** One entry as the central directory declares it. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Where its local header starts, and its compressed bytes start and end, in the file. */
  headerStart: number;
  dataStart: number;
  dataEnd: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_LOCATOR = 0x07064b50;

const bad = (why: string) => new FileError(400, `The .xlsx file cannot be read safely as a workbook: ${why}`);

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Offset of the end-of-central-directory record (searched backwards over the longest possible comment). */
function findEocd(bytes: Uint8Array, dv: DataView): number {
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (dv.getUint32(i, true) === EOCD && i + 22 + dv.getUint16(i + 20, true) === bytes.length) return i;
  }
  throw bad('no zip end-of-central-directory record');
}

/** Reads and checks the central directory; throws FileError (400, or 413 for a too-large total). */
export function inspectZip(bytes: Uint8Array): ZipEntry[] {
  const dv = view(bytes);
  const eocd = findEocd(bytes, dv);
  if (eocd >= 20 && dv.getUint32(eocd - 20, true) === ZIP64_LOCATOR) throw bad('ZIP64 archives are not accepted');
  if (dv.getUint16(eocd + 4, true) !== 0 || dv.getUint16(eocd + 6, true) !== 0) throw bad('multi-disk archives are not accepted');
  const count = dv.getUint16(eocd + 10, true);
  const cdSize = dv.getUint32(eocd + 12, true);
  const cdStart = dv.getUint32(eocd + 16, true);
  if (count > ZIP_LIMITS.maxEntries) throw bad(`more than ${ZIP_LIMITS.maxEntries} entries`);
  if (cdStart + cdSize > eocd) throw bad('the central directory lies outside the file');

  const entries: ZipEntry[] = [];
  let total = 0;
  let p = cdStart;
  for (let k = 0; k < count; k++) {
    if (p + 46 > eocd || dv.getUint32(p, true) !== CENTRAL) throw bad('a damaged central directory');
    const flags = dv.getUint16(p + 8, true);
    const method = dv.getUint16(p + 10, true);
    const compressedSize = dv.getUint32(p + 20, true);
    const size = dv.getUint32(p + 24, true);
    const nameLength = dv.getUint16(p + 28, true);
    const next = p + 46 + nameLength + dv.getUint16(p + 30, true) + dv.getUint16(p + 32, true);
    const offset = dv.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLength));
    if (flags & 0x41) throw bad(`entry '${name}' is encrypted`);
    if (method !== 0 && method !== 8) throw bad(`entry '${name}' uses compression method ${method}`);
    if ([compressedSize, size, offset].includes(0xffffffff)) throw bad('ZIP64 archives are not accepted');
    if (method === 0 && compressedSize !== size) throw bad(`stored entry '${name}' declares two sizes`);
    total += size;
    if (total > ZIP_LIMITS.maxTotalBytes) {
      throw new FileError(413, `The .xlsx file expands to more than ${ZIP_LIMITS.maxTotalBytes / 1024 / 1024} MB; split it into smaller files`);
    }
    if (size > ZIP_LIMITS.ratioFloorBytes && size / Math.max(compressedSize, 1) > ZIP_LIMITS.maxRatio) {
      throw bad(`entry '${name}' is compressed more than ${ZIP_LIMITS.maxRatio}:1`);
    }
    if (offset + 30 > cdStart || dv.getUint32(offset, true) !== LOCAL) throw bad(`entry '${name}' has no local header`);
    const dataStart = offset + 30 + dv.getUint16(offset + 26, true) + dv.getUint16(offset + 28, true);
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > cdStart) throw bad(`entry '${name}' runs into the central directory`);
    entries.push({ name, method, compressedSize, size, headerStart: offset, dataStart, dataEnd });
    p = next;
  }
  const sorted = [...entries].sort((a, b) => a.headerStart - b.headerStart);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.headerStart < sorted[i - 1]!.dataEnd) throw bad(`entries '${sorted[i - 1]!.name}' and '${sorted[i]!.name}' overlap`);
  }
  return entries;
}

/** Inflates one entry, never producing more than its declared size; a size that lies → 400. */
function inflateEntry(bytes: Uint8Array, e: ZipEntry): Uint8Array {
  const raw = bytes.subarray(e.dataStart, e.dataEnd);
  if (e.method === 0) return raw;
  let out: Buffer;
  try {
    out = inflateRawSync(raw, { maxOutputLength: Math.max(e.size, 1) });
  } catch {
    throw bad(`entry '${e.name}' inflates to more than its declared ${e.size} bytes, or is damaged`);
  }
  if (out.length !== e.size) throw bad(`entry '${e.name}' inflates to ${out.length} bytes, not its declared ${e.size}`);
  return out;
}

/**
 * A zip of the same entries, all stored (uncompressed), built after inspectZip accepted the file: one buffer
 * of exactly the declared total, with one inflated entry at a time besides it.
 */
export function repackStored(bytes: Uint8Array, entries: readonly ZipEntry[]): Uint8Array {
  const names = entries.map((e) => new TextEncoder().encode(e.name));
  const dataBytes = entries.reduce((n, e, i) => n + 30 + names[i]!.length + e.size, 0);
  const cdSize = names.reduce((n, name) => n + 46 + name.length, 0);
  const out = Buffer.alloc(dataBytes + cdSize + 22);
  let at = 0;
  let cd = dataBytes;
  entries.forEach((e, i) => {
    const data = inflateEntry(bytes, e);
    const name = names[i]!;
    const crc = crc32(data);
    out.writeUInt32LE(LOCAL, at);
    out.writeUInt16LE(20, at + 4);
    out.writeUInt32LE(crc, at + 14);
    out.writeUInt32LE(data.length, at + 18);
    out.writeUInt32LE(data.length, at + 22);
    out.writeUInt16LE(name.length, at + 26);
    out.set(name, at + 30);
    out.set(data, at + 30 + name.length);
    out.writeUInt32LE(CENTRAL, cd);
    out.writeUInt16LE(20, cd + 4);
    out.writeUInt16LE(20, cd + 6);
    out.writeUInt32LE(crc, cd + 16);
    out.writeUInt32LE(data.length, cd + 20);
    out.writeUInt32LE(data.length, cd + 24);
    out.writeUInt16LE(name.length, cd + 28);
    out.writeUInt32LE(at, cd + 42);
    out.set(name, cd + 46);
    at += 30 + name.length + data.length;
    cd += 46 + name.length;
  });
  out.writeUInt32LE(EOCD, cd);
  out.writeUInt16LE(entries.length, cd + 8);
  out.writeUInt16LE(entries.length, cd + 10);
  out.writeUInt32LE(cdSize, cd + 12);
  out.writeUInt32LE(dataBytes, cd + 16);
  return out;
}

/** inspectZip then repackStored: the bytes the xlsx library may safely read. */
export function defusedZip(bytes: Uint8Array): Uint8Array {
  return repackStored(bytes, inspectZip(bytes));
}
