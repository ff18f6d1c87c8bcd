/**
 * Crafted zip bombs disguised as .xlsx, generated in the test (nothing checked in): overlapping entries that
 * share one deflated block, a single entry with an extreme compression ratio, and one that lies about its size.
 * The deflated data is produced by a streaming deflate, so building a bomb never holds its inflated bytes.
 */
import { once } from 'node:events';
import { createDeflateRaw, crc32 } from 'node:zlib';

/** Raw deflate of `mib` MiB of zero bytes, fed 1 MiB at a time. */
export async function deflatedZeros(mib: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) if (!deflate.write(chunk)) await once(deflate, 'drain');
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(out);
}

interface CentralEntry {
  name: string;
  offset: number;
  compressedSize: number;
  size: number;
}

function localHeader(name: string, compressedSize: number, size: number, crc = 0): Buffer {
  const b = Buffer.alloc(30 + name.length);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(20, 4);
  b.writeUInt16LE(8, 8); // deflate
  b.writeUInt32LE(crc, 14);
  b.writeUInt32LE(compressedSize, 18);
  b.writeUInt32LE(size, 22);
  b.writeUInt16LE(name.length, 26);
  b.write(name, 30, 'latin1');
  return b;
}

function centralDirectory(entries: CentralEntry[], cdStart: number): Buffer {
  const parts = entries.map((e) => {
    const b = Buffer.alloc(46 + e.name.length);
    b.writeUInt32LE(0x02014b50, 0);
    b.writeUInt16LE(20, 4);
    b.writeUInt16LE(20, 6);
    b.writeUInt16LE(8, 10);
    b.writeUInt32LE(e.compressedSize, 20);
    b.writeUInt32LE(e.size, 24);
    b.writeUInt16LE(e.name.length, 28);
    b.writeUInt32LE(e.offset, 42);
    b.write(e.name, 46, 'latin1');
    return b;
  });
  const cd = Buffer.concat(parts);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(cdStart, 16);
  return Buffer.concat([cd, end]);
}

/** `count` central entries of `mib` MiB each, all pointing at the same local entry (the overlap bomb). */
export async function overlappingBomb(count: number, mib: number): Promise<Buffer> {
  const data = await deflatedZeros(mib);
  const size = mib * 1024 * 1024;
  const local = Buffer.concat([localHeader('xl/worksheets/sheet1.xml', data.length, size), data]);
  const entries = Array.from({ length: count }, (_, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, offset: 0, compressedSize: data.length, size }));
  return Buffer.concat([local, centralDirectory(entries, local.length)]);
}

/** One entry of `mib` MiB of zeros; `declaredMib` lets it lie about its size (default: honest). */
export async function singleEntryBomb(mib: number, declaredMib = mib): Promise<Buffer> {
  const data = await deflatedZeros(mib);
  const size = declaredMib * 1024 * 1024;
  const local = Buffer.concat([localHeader('xl/worksheets/sheet1.xml', data.length, size, crc32(Buffer.alloc(0))), data]);
  return Buffer.concat([local, centralDirectory([{ name: 'xl/worksheets/sheet1.xml', offset: 0, compressedSize: data.length, size }], local.length)]);
}

/** Samples this process's RSS (the in-process server and its worker threads) while `work` runs. */
export async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; baseMb: number; peakMb: number }> {
  const mb = () => process.memoryUsage.rss() / 1024 / 1024;
  const baseMb = mb();
  let peakMb = baseMb;
  const timer = setInterval(() => (peakMb = Math.max(peakMb, mb())), 5);
  try {
    const result = await work();
    peakMb = Math.max(peakMb, mb());
    return { result, baseMb, peakMb };
  } finally {
    clearInterval(timer);
  }
}
