import XLSX from 'xlsx';
import { describe, expect, it } from 'vitest';
import { MAX_RECORD_CHARS, parseRecords, readRecords } from '../../common/files/csv-records.ts';
import { chooseDelimiter } from '../../common/files/delimiter.ts';
import { decodeText } from '../../common/files/encoding.ts';
import { cellText, excelDate, plainNumber } from '../../common/files/xlsx-cell.ts';
import { pickSheet } from '../../server/files/xlsx-rows.ts';

// docs/files.md: the pure rules of the one intake, shared by the server and the screens' preview.
describe('the delimiter rule', () => {
  it('a `;` header whose quoted cells hold commas is a `;` file, header alone or with data', () => {
    expect(chooseDelimiter('"Name, Vorname";"Email"', true)).toBe(';');
    expect(chooseDelimiter('"Name, Vorname";"Email"\r\n"Doe, John";"john@example.org"\r\n', true)).toBe(';');
    expect(chooseDelimiter('"Telefon, mobil";"Name, Vorname"\n"+31 6 1234, 5678";"Doe, John"\n', true)).toBe(';');
  });

  it('the delimiter under which the records have the same number of cells, the most cells winning, `,` on a tie', () => {
    expect(chooseDelimiter('a;b;c\n1;2;3\n', true)).toBe(';');
    expect(chooseDelimiter('a\tb\n1\t2\n', true)).toBe('\t');
    expect(chooseDelimiter('a,b;c\n1,2;3\n', true)).toBe(','); // 2 cells under both: the tie goes to `,`
    expect(chooseDelimiter('a,b;c;d\n1,2;3;4\n', true)).toBe(';'); // 3 cells beat 2
    expect(chooseDelimiter('a,b\n1;2\n', true)).toBe(','); // neither consistent: the first record's cells
    expect(chooseDelimiter('only@one.column\nsecond@one.column\n', true)).toBe(',');
    expect(chooseDelimiter('\n\n a;b \n\n1;2\n', true)).toBe(';'); // blank records do not count
  });

  it('quotes are respected: a line break inside quotes does not end the record the rule looks at', () => {
    expect(chooseDelimiter('"a\nb";c;d\n1;2;3\n', true)).toBe(';');
  });

  it('looks at the first 50 records only; `.tsv` is tab whatever the content; a cut last record is left out', () => {
    const head = Array.from({ length: 50 }, () => 'a;b').join('\n');
    expect(chooseDelimiter(`${head}\nx,y,z;w\n`, true)).toBe(';');
    expect(chooseDelimiter('a,b\n1,2\n', true, 'list.TSV')).toBe('\t');
    expect(chooseDelimiter('a;b\n1;2\n"3;4', false)).toBe(';');
  });
});

describe('the RFC 4180 record reader', () => {
  it('quoted cells hold delimiters, doubled quotes and line breaks (CR LF or LF), in any row, the header included', () => {
    expect(parseRecords('"Name, Vorname";"Notiz\r\n(intern)"\r\n"Doe, John";"say ""hi"""\n', ';')).toEqual([
      ['Name, Vorname', 'Notiz\r\n(intern)'],
      ['Doe, John', 'say "hi"'],
    ]);
  });

  it('CR LF, LF and CR end records; empty cells and a last record without a break are kept', () => {
    expect(parseRecords('a,b,\r\n,x\rlast,1', ',')).toEqual([['a', 'b', ''], ['', 'x'], ['last', '1']]);
    expect(parseRecords('"q",b,\r\n,x\rlast,1', ',')).toEqual([['q', 'b', ''], ['', 'x'], ['last', '1']]);
  });

  it('a malformed quote makes its own line one literal row and never swallows the lines after it', () => {
    expect(parseRecords('a\n"open@x.com\nb\n', ',')).toEqual([['a'], ['"open@x.com'], ['b']]);
    expect(parseRecords('"test"@x.com,1\nc,2\n', ',')).toEqual([['"test"@x.com', '1'], ['c', '2']]);
    expect(parseRecords('x,y"z,w\n', ',')).toEqual([['x', 'y"z', 'w']]); // a quote inside an unquoted cell
  });

  it('read in pieces, a record that may go on waits for the next piece', () => {
    const text = 'a,"b\r\nc",d\r\ne,f\r\n';
    for (let cut = 1; cut < text.length; cut++) {
      const out: string[][] = [];
      const pos = readRecords(text.slice(0, cut), 0, ',', false, out);
      readRecords(text.slice(0, cut).slice(pos) + text.slice(cut), 0, ',', true, out);
      expect(out, `cut at ${cut}`).toEqual([['a', 'b\r\nc', 'd'], ['e', 'f']]);
    }
  });

  it('an opening quote not closed within the record limit is malformed, not a wait for the rest of the file', () => {
    const out: string[][] = [];
    const text = `"${'x'.repeat(MAX_RECORD_CHARS + 10)}\nnext\n`;
    expect(readRecords(text, 0, ',', false, out)).toBe(text.length);
    expect(out.at(-1)).toEqual(['next']);
  });
});

describe('encodings', () => {
  it('UTF-8 ± BOM, UTF-16 LE/BE with BOM, and Windows-1252 when the bytes are not UTF-8', () => {
    expect(decodeText(new TextEncoder().encode('Müller'))).toEqual({ text: 'Müller', encoding: 'utf-8' });
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x4d]))).toEqual({ text: 'M', encoding: 'utf-8' });
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x4d, 0, 0xfc, 0]))).toEqual({ text: 'Mü', encoding: 'utf-16le' });
    expect(decodeText(new Uint8Array([0xfe, 0xff, 0, 0x4d, 0, 0xfc]))).toEqual({ text: 'Mü', encoding: 'utf-16be' });
    expect(decodeText(new Uint8Array([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x20, 0x80, 0x93, 0x94]))).toEqual({ text: 'Müller €“”', encoding: 'windows-1252' });
  });

  it('a file start cut inside a UTF-8 character is still UTF-8', () => {
    const bytes = new TextEncoder().encode('Zoë');
    expect(decodeText(bytes.subarray(0, bytes.length - 1), false)).toEqual({ text: 'Zo', encoding: 'utf-8' });
  });
});

describe('workbook cells', () => {
  it('numbers as Excel holds them, never in exponent form', () => {
    expect(plainNumber(4917012345678)).toBe('4917012345678');
    expect(plainNumber(31612345678)).toBe('31612345678');
    expect(plainNumber(1e22)).toBe('10000000000000000000000');
    expect(plainNumber(0.0000001)).toBe('0.0000001');
    expect(plainNumber(-1.5e-10)).toBe('-0.00000000015');
    expect(plainNumber(123.456)).toBe('123.456');
  });

  it('dates as ISO dates (with the time when there is one), 1900 and 1904 systems', () => {
    expect(excelDate(46354)).toBe('2026-11-28');
    expect(excelDate(46354.5730324074)).toBe('2026-11-28T13:45:10');
    expect(excelDate(44892, true)).toBe('2026-11-28');
  });

  it('text as written, formulas by their cached value, booleans and errors as Excel shows them', () => {
    const isDate = (f: string | number) => XLSX.SSF.is_date(f);
    expect(cellText({ t: 's', v: '0612345678' }, isDate)).toBe('0612345678');
    expect(cellText({ t: 'n', v: 4917012345678, w: '4.91701E+12' }, isDate)).toBe('4917012345678');
    expect(cellText({ t: 'n', v: 46354, z: 'dd.mm.yyyy' }, isDate)).toBe('2026-11-28');
    expect(cellText({ t: 'n', v: 5, z: '0.00' }, isDate)).toBe('5');
    expect(cellText({ t: 'b', v: true }, isDate)).toBe('TRUE');
    expect(cellText({ t: 'e', v: 42 }, isDate)).toBe('#N/A');
    expect(cellText(undefined, isDate)).toBe('');
  });

  it('the `sheet` field: a name (any case) or a 1-based number; anything else names the sheets', () => {
    expect(pickSheet(['Numbers', 'Emails'], undefined)).toBe('Numbers');
    expect(pickSheet(['Numbers', 'Emails'], 'emails')).toBe('Emails');
    expect(pickSheet(['Numbers', 'Emails'], '2')).toBe('Emails');
    expect(pickSheet(['2024', 'Other'], '2024')).toBe('2024');
    expect(() => pickSheet(['Numbers', 'Emails'], '3')).toThrow("The workbook has no sheet '3': its sheets are 'Numbers', 'Emails'");
    expect(() => pickSheet([], undefined)).toThrow(/no worksheet/);
  });
});
