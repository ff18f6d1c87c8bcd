import XLSX from 'xlsx';
import { describe, expect, it } from 'vitest';
import { csvCell, unguardCell } from '../../server/lib/csv-cell.ts';
import { decodeText } from '../../common/files/encoding.ts';
import { chooseDelimiter } from '../../common/files/delimiter.ts';
import { FileError } from '../../server/files/file-error.ts';
import { detectFormat } from '../../server/files/file-format.ts';
import { openWorkbook } from '../../server/files/xlsx-rows.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { columnValues, entryChecker, readTextFileValues, readTextValues as lazyText, rowsOf } from '../../server/optout/import-parse.ts';

const readTextValues = (bytes: Uint8Array, maxRows: number) => [...lazyText(bytes, maxRows).values];
const readXlsxValues = (bytes: Uint8Array, maxRows: number) => [...columnValues(rowsOf(openWorkbook(bytes, maxRows).batches()), maxRows)];
const detectDelimiter = (text: string) => chooseDelimiter(text, true);

const utf8 = (s: string) => new TextEncoder().encode(s);
const utf16le = (s: string) => new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]));
const utf16be = (s: string) => new Uint8Array(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, 'utf16le').swap16()]));

describe('csv cells', () => {
  it.each(['=1+1', '+x', '-x@y.com', '@x', '\tx', '\rx', "'x", "''x", 'a,b', 'a"b', 'plain@x.com', ''])('%j survives export and import', (v) => {
    const cell = csvCell(v);
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
    expect(unguardCell(unquoted)).toBe(v);
  });

  it('guards formula starts and quotes per RFC 4180', () => {
    expect(csvCell('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(unguardCell("'abc")).toBe("'abc"); // not a guard: ' before an ordinary character stays
  });
});

describe('decoding and delimiters', () => {
  it('reads UTF-8 with and without BOM and UTF-16 LE/BE with BOM', () => {
    for (const bytes of [utf8('a@b.com'), utf8('\ufeffa@b.com'), utf16le('a@b.com'), utf16be('a@b.com')]) {
      expect(decodeText(bytes).text).toBe('a@b.com');
    }
  });

  it('reads bytes that are not valid UTF-8 as Windows-1252', () => {
    expect(decodeText(new Uint8Array([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x80]))).toEqual({ text: 'Müller€', encoding: 'windows-1252' });
  });

  it('detects , ; and tab from the first records', () => {
    expect(detectDelimiter('\n\na;b;c\n')).toBe(';');
    expect(detectDelimiter('a\tb\n')).toBe('\t');
    expect(detectDelimiter('a,b\n')).toBe(',');
    expect(detectDelimiter('a@b.com\n')).toBe(',');
  });
});

describe('readTextValues', () => {
  it('uses the named header column and skips blank lines', () => {
    expect(readTextValues(utf8('Name;EMAIL\r\n\r\nA;a@b.com\r\n ; \r\nB;c@d.com\r\n'), 10)).toEqual(['a@b.com', 'c@d.com']);
  });

  it('takes the first column when there is no header', () => {
    expect(readTextValues(utf8('a@b.com,x\nc@d.com,y\n'), 10)).toEqual(['a@b.com', 'c@d.com']);
  });

  it('unquotes RFC 4180 cells, including delimiters and line breaks inside quotes', () => {
    expect(readTextValues(utf8('emailAddress,note\r\n"a@b.com","x,\r\ny"\r\n"\'-c@d.com",z\r\n'), 10)).toEqual(['a@b.com', '-c@d.com']);
  });

  it('refuses more data rows than allowed (header and blank lines not counted)', () => {
    expect(readTextValues(utf8('email\n1\n\n2\n3\n'), 3)).toEqual(['1', '2', '3']);
    expect(() => readTextValues(utf8('email\n1\n2\n3\n4\n'), 3)).toThrow(FileError);
    expect(() => readTextValues(utf8('email\n"1"\n2\n3\n4\n'), 3)).toThrow(/more than 3 data rows/);
  });

  it('takes a line with a malformed quote literally as one row, never swallowing the lines after it', () => {
    expect(readTextValues(utf8('"a@b.com\nc@d.com\n'), 10)).toEqual(['"a@b.com', 'c@d.com']);
    expect(readTextValues(utf8('"test"@x.com\n""@x.com\n"""@x.com\n"\\"@x.com\ne@x.com\n'), 10)).toEqual([
      '"test"@x.com',
      '""@x.com',
      '"""@x.com',
      '"\\"@x.com',
      'e@x.com',
    ]);
    expect(readTextValues(utf8('"a"b@x.com,1\n"c@x.com",2\n'), 10)).toEqual(['"a"b@x.com', 'c@x.com']);
  });

  it('keeps one row per line for a file of one address per line (blank lines aside)', () => {
    const lines = ['x@y.com', '"quoted"@y.com', 'a"b@y.com', '"open@y.com', 'tail"@y.com', '"a""b"@y.com', "'Foo, Bar'<f@b.com>"];
    expect(readTextValues(utf8(`${lines.join('\r\n')}\r\n\r\n`), 100)).toHaveLength(lines.length);
  });
});

describe('readTextFileValues (a UTF-8 file without quotes read in slices)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-parse-'));
  const onDisk = (bytes: Uint8Array, slice: number, maxRows = 100) => {
    const file = join(dir, 'f.csv');
    writeFileSync(file, bytes);
    try {
      return [...readTextFileValues(file, maxRows, false, slice).values];
    } catch (err) {
      return err instanceof FileError ? `${err.status} ${err.message}` : err;
    }
  };
  const whole = (bytes: Uint8Array, maxRows = 100) => {
    try {
      return readTextValues(bytes, maxRows);
    } catch (err) {
      return err instanceof FileError ? `${err.status} ${err.message}` : err;
    }
  };
  const files: [string, Uint8Array][] = [
    ['CRLF, header, blank lines', utf8('Name;EMAIL\r\n\r\nA;a@b.com\r\n ; \r\nB;c@d.com\r\n')],
    ['LF and CR mixed, no final break', utf8('a@b.com,x\nc@d.com,y\re@f.com\r\n\r\rg@h.com')],
    ['blank lines with tabs before the first row', utf8(' \t \r\n\t\r\nx\ty@z.com\ty\r\nw@v.com\r\n')],
    ['a byte-order mark and multi-byte addresses', utf8('\ufeffemail\r\nmüller@bücher.de\r\n日本@例え.jp\r\n')],
    ['guarded cells', utf8("emailAddress\r\n'=a@b.com\r\n'-c@d.com\r\n")],
    ['invalid UTF-8 at the end', new Uint8Array([...utf8('a@b.com\r\nc@d.com\r\n'), 0xff])],
    ['a quote: read whole', utf8('emailAddress,note\r\n"a@b.com","x,\r\ny"\r\n')],
    ['UTF-16: read whole', utf16le('email\r\na@b.com\r\n')],
  ];
  it.each(files)('%s: the same values as the whole text, whatever the slice size', (_name, bytes) => {
    for (const slice of [1, 2, 3, 5, 7, 64, 1 << 20]) expect(onDisk(bytes, slice), `slice ${slice}`).toEqual(whole(bytes));
  });
  it('the row limit and the encoding as when read whole', () => {
    const many = utf8('a@b.com\r\nc@d.com\r\ne@f.com\r\n');
    expect(onDisk(many, 4, 2)).toEqual(whole(many, 2));
    expect(onDisk(many, 4, 2)).toMatch(/^400 The file has more than 2 data rows/);
    const both = new Uint8Array([...many, 0xc3]);
    expect(onDisk(both, 4, 2)).toMatch(/^400 The file has more than 2 data rows/);
    expect(onDisk(both, 4, 4)).toEqual(['a@b.com', 'c@d.com', 'e@f.com', 'Ã']);
  });
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});

describe('readXlsxValues', () => {
  const book = (rows: unknown[][]) => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'One');
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['ignored@x.com']]), 'Two');
    return new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
  };

  it('reads the first sheet with and without header', () => {
    expect(readXlsxValues(book([['id', 'Domain'], [1, 'a.com'], [], [2, 'b.com']]), 10)).toEqual(['a.com', 'b.com']);
    expect(readXlsxValues(book([['a@b.com'], ['c@d.com']]), 10)).toEqual(['a@b.com', 'c@d.com']);
  });

  it('refuses a sheet with more data rows than allowed', () => {
    expect(readXlsxValues(book([['email'], ['a'], ['b'], ['c']]), 3)).toEqual(['a', 'b', 'c']);
    expect(() => readXlsxValues(book([['email'], ['a'], ['b'], ['c'], ['d']]), 3)).toThrow(/more than 3 data rows/);
  });

  it('refuses garbage that only looks like a zip', () => {
    expect(() => readXlsxValues(new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8]), 10)).toThrow(FileError);
  });
});

describe('detectFormat', () => {
  it('matches extension and content', () => {
    expect(detectFormat('a.CSV', utf8('x'))).toBe('text');
    expect(detectFormat('a.txt', utf16le('x'))).toBe('text');
    expect(detectFormat('a.xlsx', new Uint8Array([0x50, 0x4b, 3, 4]))).toBe('xlsx');
    expect(() => detectFormat('a.xlsx', utf8('a@b.com'))).toThrow(/not an Excel workbook/);
    expect(() => detectFormat('a.csv', new Uint8Array([0x50, 0x4b, 3, 4]))).toThrow(/zip/);
    expect(() => detectFormat('a.txt', new Uint8Array([0x61, 0, 0x62]))).toThrow(/binary/);
    expect(() => detectFormat('a.pdf', utf8('x'))).toThrow(/\.csv, \.tsv, \.txt or \.xlsx/);
    expect(() => detectFormat('a.csv', new Uint8Array())).toThrow(/empty/);
  });
});

describe('entryChecker', () => {
  it('normalises e-mails and domains and names the problem of invalid ones', () => {
    const email = entryChecker('emails');
    expect(email(' B@X.com ')).toEqual({ ok: true, value: 'b@x.com' });
    expect(email('b@Bücher.de')).toEqual({ ok: true, value: 'b@xn--bcher-kva.de' });
    expect(email('b@Bücher.de')).toEqual({ ok: true, value: 'b@xn--bcher-kva.de' }); // cached domain
    expect(email('bad')).toMatchObject({ ok: false });
    const domain = entryChecker('domains');
    expect(domain('Bücher.de')).toEqual({ ok: true, value: 'xn--bcher-kva.de' });
    expect(domain('nope')).toMatchObject({ ok: false, reason: expect.stringMatching(/two labels/) });
  });
});
