/**
 * Differential test of the opt-out import's own CSV reader (server/optout/import-parse.ts) against csv-parse
 * on generated files. Both feed the same column rules (columnValues: header detection, blank rows, the export
 * guard), so any difference is the readers'.
 * - Well-formed RFC 4180 files (quoted cells with delimiters, doubled quotes and line breaks; `,` `;` or tab;
 *   CRLF, LF or CR): they must agree, value for value.
 * - Malformed quotes (a quote never closed, or text after a closing quote): they deliberately differ. csv-parse
 *   refuses the whole file; ours takes that one line literally and reads the rest (so one stray quote in an
 *   address, as in `"test"@example.com`, makes one row invalid and never swallows the lines after it).
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../server/demo/prng.ts';
import { chooseDelimiter } from '../../common/files/delimiter.ts';
import { columnValues, readTextValues } from '../../server/optout/import-parse.ts';

const detectDelimiter = (text: string) => chooseDelimiter(text, true);

const MAX_ROWS = 1_000_000;
const CASES = 2000;
const MALFORMED_CASES = 500;

const PIECES = ['a', 'jane.doe', '@', 'example.com', ' ', 'é', '中', '"', ',', ';', '\t', '\n', '\r\n', "'", '=', '-', 'email', 'x'];

function generator(seed: number) {
  const rng = createRng(seed);
  const rand = rng.next;
  const pick = rng.pick;
  const cellText = () => Array.from({ length: Math.floor(rand() * 5) }, () => pick(PIECES)).join('');
  /** A well-formed file: quoted when the content needs it (or at random), quotes doubled inside. */
  const file = () => {
    const delimiter = pick([',', ';', '\t']);
    const eol = pick(['\r\n', '\n', '\r']);
    const rows = Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
      Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
        const text = cellText().replace(/\r\n|\r|\n/g, eol);
        const needs = text.includes('"') || text.includes(delimiter) || /[\r\n]/.test(text);
        return needs || rand() < 0.3 ? `"${text.replaceAll('"', '""')}"` : text;
      }),
    );
    return { delimiter, text: rows.map((r) => r.join(delimiter)).join(eol) + (rand() < 0.5 ? eol : '') };
  };
  return { rand, pick, file };
}

function ours(text: string): string[] {
  return [...readTextValues(new TextEncoder().encode(text), MAX_ROWS).values];
}

function theirs(text: string): string[] {
  const rows = parse(text, { delimiter: detectDelimiter(text), relax_column_count: true, skip_empty_lines: false }) as string[][];
  return [...columnValues(rows, MAX_ROWS)];
}

describe('CSV reader vs csv-parse', () => {
  it(`agree on ${CASES} generated well-formed files`, () => {
    const g = generator(20261124);
    const differences: string[] = [];
    let values = 0;
    for (let i = 0; i < CASES; i++) {
      let { text, delimiter } = g.file();
      // Both readers take the delimiter from the first line; keep files whose first line shows the one used.
      while (detectDelimiter(text) !== delimiter) ({ text, delimiter } = g.file());
      const a = ours(text);
      const b = theirs(text);
      values += b.length;
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${JSON.stringify(text)}\n  ours   ${JSON.stringify(a)}\n  theirs ${JSON.stringify(b)}`);
    }
    expect(differences.slice(0, 5)).toEqual([]);
    expect(values).toBeGreaterThan(CASES); // the files were not trivially empty
  });

  it(`deliberately differ on ${MALFORMED_CASES} files with a malformed quote: csv-parse refuses the file, ours reads that line literally`, () => {
    const g = generator(42);
    let refusedByCsvParse = 0;
    for (let i = 0; i < MALFORMED_CASES; i++) {
      const before = 'first@example.com';
      const after = 'last@example.com';
      const broken = g.pick(['"never closed@example.com', '"test"@example.com', '"a"b,c', 'x,"y"z']);
      const eol = g.pick(['\r\n', '\n']);
      const text = [before, broken, after].join(eol);
      let theirsFailed = false;
      try {
        theirs(text);
      } catch {
        theirsFailed = true;
      }
      if (theirsFailed) refusedByCsvParse++;
      const values = ours(text);
      // Ours: the rows around the broken one are read as usual, the broken line is one row taken literally.
      expect(values[0]).toBe(before);
      expect(values.at(-1)).toBe(after);
      expect(values).toHaveLength(3);
      expect(values[1]).toBe(broken.split(detectDelimiter(text))[0]);
    }
    expect(refusedByCsvParse).toBe(MALFORMED_CASES);
  });
});
