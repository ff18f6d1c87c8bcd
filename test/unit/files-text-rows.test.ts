import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBlankRecord } from '../../common/files/csv-records.ts';
import { openTextFile } from '../../server/files/text-rows.ts';

const dir = mkdtempSync(join(tmpdir(), 'scrub-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rowsOf = (content: string | Buffer, tab = false, chunk?: number) => {
  const file = join(dir, `f${Math.random()}.csv`);
  writeFileSync(file, content);
  const opened = openTextFile(file, tab, chunk);
  const rows = [...opened.batches()].flat();
  expect(opened.count()).toBe(rows.filter((r) => !isBlankRecord(r)).length); // the counting pass agrees
  return rows;
};
const encodingOf = (content: string | Buffer) => {
  const file = join(dir, `f${Math.random()}.csv`);
  writeFileSync(file, content);
  return openTextFile(file, false).encoding;
};

describe('text file rows (read in 1 MiB chunks)', () => {
  it('reads quoted cells with delimiters, doubled quotes and line breaks; a stray quote stays one row', () => {
    expect(rowsOf('a,"b,1","say ""hi""","two\nlines"\r\nx,y"z,w\n')).toEqual([['a', 'b,1', 'say "hi"', 'two\nlines'], ['x', 'y"z', 'w']]);
  });

  it('detects ; and tab, forces tab for .tsv, reads UTF-16 with BOM and drops a UTF-8 BOM', () => {
    expect(rowsOf('a;b\n1;2')).toEqual([['a', 'b'], ['1', '2']]);
    expect(rowsOf('a,b\tc\n', true)).toEqual([['a,b', 'c']]);
    expect(rowsOf(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('n\n1\n', 'utf16le')]))).toEqual([['n'], ['1']]);
    expect(rowsOf('\uFEFFphone\n1\n')).toEqual([['phone'], ['1']]);
  });

  it('rows across chunk boundaries come out whole, with and without quotes', () => {
    const plain = Array.from({ length: 120_000 }, (_, i) => `${i},name ${i},0301${String(i).padStart(6, '0')}`).join('\n');
    const rows = rowsOf(plain);
    expect(rows).toHaveLength(120_000);
    expect(rows[99_999]).toEqual(['99999', 'name 99999', '0301099999']);
    const quoted = Array.from({ length: 60_000 }, (_, i) => `${i},"name, ${i}","line\n${i}"`).join('\r\n');
    const q = rowsOf(quoted);
    expect(q).toHaveLength(60_000);
    expect(q.every((r, i) => r[1] === `name, ${i}` && r[2] === `line\n${i}`)).toBe(true);
  });

  it('quote-free text: CRLF, CR alone, empty cells and lines, a last line without a break, one column of many lines', () => {
    expect(rowsOf('a,b,\r\n,x\r\n\r\nlast,1')).toEqual([['a', 'b', ''], ['', 'x'], [''], ['last', '1']]);
    expect(rowsOf('a,b\rc,d\r')).toEqual([['a', 'b'], ['c', 'd']]);
    expect(rowsOf('a,,b\n\n,\n')).toEqual([['a', '', 'b'], [''], ['', '']]);
    const single = Array.from({ length: 200_000 }, (_, i) => `0301${i}`).join('\n');
    const rows = rowsOf(`${single}\n`);
    expect(rows).toHaveLength(200_000);
    expect(rows[123_456]).toEqual(['0301123456']);
  });

  it('blank rows (white space and delimiters only) are not counted', () => {
    expect(rowsOf('a,b\n , \n\n1,2\r\n;\n')).toHaveLength(5);
  });

  it('bytes that are not valid UTF-8 are read as Windows-1252', () => {
    expect(rowsOf(Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x3b, 0x80, 0x0a]))).toEqual([['Müller', '€']]);
    expect(encodingOf(Buffer.from([0x4d, 0xfc, 0x0a]))).toBe('windows-1252');
    expect(encodingOf('Müller\n')).toBe('utf-8');
    expect(encodingOf(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('utf-8');
    expect(encodingOf(Buffer.from([0xff, 0xfe, 0x61, 0]))).toBe('utf-16le');
    expect(encodingOf(Buffer.from([0xfe, 0xff, 0, 0x61]))).toBe('utf-16be');
  });

  it('ASCII chunks read fast give the same text: a BOM then ASCII, accents after the first MiB, a second BOM kept, bad bytes late → Windows-1252', () => {
    const ascii = Array.from({ length: 120_000 }, (_, i) => `${i},n${i}`).join('\n'); // > 1 MiB
    const rows = rowsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${ascii}\nZoë,Ærø\n1,é`)]));
    expect(rows).toHaveLength(120_002);
    expect(rows[0]).toEqual(['0', 'n0']);
    expect(rows.slice(-2)).toEqual([['Zoë', 'Ærø'], ['1', 'é']]);
    expect(rowsOf('\uFEFF\uFEFFa\n')).toEqual([['\uFEFFa']]);
    expect(rowsOf(Buffer.concat([Buffer.from(`${ascii}\n`), Buffer.from([0x61, 0xc3, 0x0a])])).at(-1)).toEqual(['aÃ']);
  });
});
