// Typed cells of the screens' XLSX exports: Excel date-times in the zone shown, durations, numbers with formats.
import type {} from '../../renderer/env.d.ts';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { toCsv, toXlsx } from '../../renderer/src/api/download.ts';
import { dateTimeCell, durationCell, numberCell } from '../../renderer/src/api/export-cells.ts';

describe('screen export cells', () => {
  it('a time is an Excel date-time of its wall clock in the zone shown, whatever zone this computer is in', () => {
    // 2026-07-01 10:30:00 UTC is 12:30 in Amsterdam (summer time) and 06:30 in New York.
    const iso = '2026-07-01T10:30:00.000Z';
    const ams = dateTimeCell(iso, 'Europe/Amsterdam', 'shown');
    const ny = dateTimeCell(iso, 'America/New_York', 'shown');
    const serial = (y: number, m: number, d: number, h: number, min: number) => Date.UTC(y, m - 1, d, h, min) / 86_400_000 + 25_569;
    expect(ams).toEqual({ value: serial(2026, 7, 1, 12, 30), format: 'yyyy-mm-dd hh:mm:ss', text: 'shown' });
    expect(typeof ny === 'object' && ny.value).toBeCloseTo(serial(2026, 7, 1, 6, 30), 9);
    expect(dateTimeCell(null, 'Europe/Amsterdam', '')).toBe('');
    expect(dateTimeCell('not a time', null, 'x')).toBe('x');
  });

  it('durations are fractions of a day; rates and shares keep their number formats; null stays the text shown', () => {
    expect(durationCell(5400, '1:30:00')).toEqual({ value: 5400 / 86_400, format: '[h]:mm:ss', text: '1:30:00' });
    expect(numberCell(0.25, '25%', '0%')).toEqual({ value: 0.25, format: '0%', text: '25%' });
    expect(numberCell(null, '–', '0.0')).toBe('–');
  });

  it('an XLSX export holds numbers and times as typed cells and text as text; the CSV writes what the screen shows', async () => {
    const rows = [['0612345678', 7, dateTimeCell('2026-01-05T08:00:00Z', 'Europe/Berlin', '05.01.2026 09:00:00'), durationCell(90, '1:30')]];
    const blob = await toXlsx('Sheet', ['Number', 'Calls', 'When (Europe/Berlin)', 'Talk'], rows);
    const sheet = XLSX.read(new Uint8Array(await blob.arrayBuffer()), { cellNF: true }).Sheets.Sheet!;
    expect(sheet.A2).toMatchObject({ t: 's', v: '0612345678' });
    expect(sheet.B2).toMatchObject({ t: 'n', v: 7 });
    expect(sheet.C2).toMatchObject({ t: 'n', z: 'yyyy-mm-dd hh:mm:ss' });
    expect(XLSX.SSF.format('yyyy-mm-dd hh:mm:ss', sheet.C2!.v as number)).toBe('2026-01-05 09:00:00');
    expect(sheet.D2).toMatchObject({ t: 'n', z: '[h]:mm:ss', v: 90 / 86_400 });
    const csv = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await toCsv(['Number', 'Calls', 'When', 'Talk'], rows).arrayBuffer());
    expect(csv).toBe('\uFEFFNumber,Calls,When,Talk\r\n0612345678,7,05.01.2026 09:00:00,1:30\r\n');
  });
});
