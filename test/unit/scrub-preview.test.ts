import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chosenColumn, previewRows } from '../../renderer/src/components/scrub/scrub-preview.ts';

// The screens' preview reads a picked file by the server's rules (common/files, docs/files.md), not by its own.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'files');
const file = (name: string) => new File([readFileSync(join(FIXTURES, name))], name);

describe('the scrub preview', () => {
  it('a `;` export with quoted commas and a quoted line break in the header: the columns the server sees', async () => {
    const rows = await previewRows(file('semicolon-quoted.csv'));
    expect(rows[0]).toEqual(['Name, Vorname', 'Email', 'Telefon, mobil, privat', 'Notiz\r\n(intern)']);
    expect(rows[1]).toEqual(['Doe, John', 'john@example.org', '020 555 0198', 'erste Zeile\r\nzweite Zeile']);
    expect(chosenColumn(rows, 'cati', null, null)).toEqual({ column: 2, header: true });
  });

  it('Windows-1252 and UTF-16 files show their letters', async () => {
    expect((await previewRows(file('excel-windows-1252.csv')))[1]).toEqual(['Müller', '0612345678', 'mueller@example.de', '5 €']);
    expect((await previewRows(file('utf16le-bom.txt')))[1]).toEqual(['anna@example.org', 'Åsa Öberg', '0301234567']);
  });

  it('a workbook shows numbers as Excel holds them, dates as ISO dates', async () => {
    const rows = await previewRows(file('workbook.xlsx'));
    expect(rows[1]).toEqual(['Ann', '4917012345678', '2026-11-28', '5', '0612345678']);
  });

  it('only the first 64 KiB is read: a record cut at its end is left out', async () => {
    const line = 'a;b;"c\r\nd"\r\n';
    const big = new File([line.repeat(Math.ceil(70_000 / line.length))], 'big.csv');
    const rows = await previewRows(big, 10_000);
    expect(rows.every((r) => r.length === 3 && r[2] === 'c\r\nd')).toBe(true);
  });
});
