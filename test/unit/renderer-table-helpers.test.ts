// The renderer's globals (window.cati) for the renderer modules this test imports.
import type {} from '../../renderer/env.d.ts';
import { describe, expect, it } from 'vitest';
import { csvCell } from '../../renderer/src/api/download.ts';
import { screenHref } from '../../renderer/src/composables/address-query.ts';
import { compareValues, sortRows, useTableSort } from '../../renderer/src/composables/table-sort.ts';
import { localInputToIso, presetRange, secondsBound, toLocalInput } from '../../renderer/src/stores/history-range.ts';
import { zoneHeading, zoneShort } from '../../renderer/src/stores/floor-format.ts';
import { categoryFilter, categoryOf, type Outcome } from '../../renderer/src/stores/report-lookups.ts';

describe('address query', () => {
  it('builds a screen address (spaces as %20, empty values left out)', () => {
    expect(screenHref('history', { tab: 'calls', q: '', orderby: 'Time desc', n: null })).toBe('#/history?tab=calls&orderby=Time%20desc');
  });
});

describe('table sort', () => {
  it('toggles, builds $orderby with a tie-breaker, and round-trips through its address text', () => {
    const sort = useTableSort('Created', true, 'Id desc');
    expect(sort.orderby()).toBe('Created desc,Id desc');
    expect(sort.field.get()).toBe('');
    sort.toggle('Comment');
    expect([sort.key, sort.desc, sort.orderby()]).toEqual(['Comment', false, 'Comment,Id desc']);
    sort.toggle('Comment');
    expect(sort.field.get()).toBe('Comment desc');
    sort.field.set('Id');
    expect(sort.orderby()).toBe('Id');
    sort.field.set('bad value; drop');
    expect(sort.orderby()).toBe('Created desc,Id desc');
  });

  it('sorts rows with nulls first and numbers by value', () => {
    expect([3, null, 10, 2].sort(compareValues)).toEqual([null, 2, 3, 10]);
    expect(sortRows([{ a: 'b10' }, { a: 'b9' }], { key: 'a', desc: false }, (r) => r.a)).toEqual([{ a: 'b9' }, { a: 'b10' }]);
  });
});

describe('ranges and bounds', () => {
  it('gives today, yesterday and this week (Monday to Monday) in local time', () => {
    const wednesday = new Date(2026, 10, 25, 15, 30);
    expect(presetRange('today', wednesday)).toEqual({ start: '2026-11-25T00:00', end: '2026-11-26T00:00' });
    expect(presetRange('yesterday', wednesday)).toEqual({ start: '2026-11-24T00:00', end: '2026-11-25T00:00' });
    expect(presetRange('week', wednesday)).toEqual({ start: '2026-11-23T00:00', end: '2026-11-30T00:00' });
    expect(presetRange('week', new Date(2026, 10, 29, 9))).toEqual({ start: '2026-11-23T00:00', end: '2026-11-30T00:00' });
    expect(presetRange('lastWeek', wednesday)).toEqual({ start: '2026-11-16T00:00', end: '2026-11-23T00:00' });
    expect(presetRange('lastWeek', new Date(2026, 10, 29, 9))).toEqual({ start: '2026-11-16T00:00', end: '2026-11-23T00:00' });
    expect(presetRange('month', wednesday)).toEqual({ start: '2026-11-01T00:00', end: '2026-12-01T00:00' });
    expect(presetRange('lastMonth', wednesday)).toEqual({ start: '2026-10-01T00:00', end: '2026-11-01T00:00' });
    expect(presetRange('lastMonth', new Date(2027, 0, 15, 9))).toEqual({ start: '2026-12-01T00:00', end: '2027-01-01T00:00' });
    expect(secondsBound(' 90 ', 'x')).toBe(90);
    expect(secondsBound('', 'x')).toBeNull();
    expect(() => secondsBound('1.5', 'Minimum duration')).toThrow('Minimum duration must be a whole number of seconds.');
  });
});

describe('ranges in the call centre\'s zone', () => {
  it('reads presets and typed wall times in the given zone, not this computer\'s (DST days included)', () => {
    // 23:30 UTC on a Sunday is already Monday in Tokyo.
    const now = Date.parse('2026-11-29T23:30:00Z');
    expect(presetRange('today', now, 'Asia/Tokyo')).toEqual({ start: '2026-11-30T00:00', end: '2026-12-01T00:00' });
    expect(presetRange('week', now, 'Asia/Tokyo')).toEqual({ start: '2026-11-30T00:00', end: '2026-12-07T00:00' });
    expect(presetRange('week', now, 'America/New_York')).toEqual({ start: '2026-11-23T00:00', end: '2026-11-30T00:00' });
    expect(localInputToIso('2026-11-30T00:00', 'From', 'Asia/Tokyo')).toBe('2026-11-29T15:00:00.000Z');
    expect(localInputToIso('2026-10-25T00:00', 'From', 'Europe/Amsterdam')).toBe('2026-10-24T22:00:00.000Z');
    expect(localInputToIso('2026-10-26T00:00', 'To', 'Europe/Amsterdam')).toBe('2026-10-25T23:00:00.000Z');
    expect(toLocalInput(Date.parse('2026-11-29T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-11-30T00:00');
    expect(() => localInputToIso('soon', 'From', 'Asia/Tokyo')).toThrow('From is not a valid date and time.');
  });
});

const OUTCOMES: Outcome[] = [
  { Code: 1, Name: 'Complete', Category: 'Complete' },
  { Code: 2, Name: 'Refused', Category: 'Refusal' },
  { Code: 9, Name: 'Misc', Category: 'Other' },
];

describe('outcome categories', () => {
  it('maps codes to categories (no row = Other) and categories to $filter', () => {
    expect(categoryOf(OUTCOMES, 2)).toBe('Refusal');
    expect(categoryOf(OUTCOMES, 77)).toBe('Other');
    expect(categoryOf(OUTCOMES, null)).toBe('Other');
    expect(categoryFilter(OUTCOMES, 'Complete')).toBe('ExtendedStatus in (1)');
    expect(categoryFilter(OUTCOMES, 'Other')).toBe('(ExtendedStatus eq null or not (ExtendedStatus in (1,2)))');
    expect(categoryFilter(OUTCOMES, 'Appointment')).toBe('ExtendedStatus eq -2147483648');
  });
});

describe('CSV cells', () => {
  it('quotes per RFC 4180 and guards formulas like the server exports', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(null)).toBe('');
  });
});

describe('zone names', () => {
  it("answers a zone's short name at each moment, across an offset change, though it keeps each minute's answer", () => {
    const fresh = (zone: string, at: number) =>
      new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
    const change = Date.UTC(2026, 2, 29, 1); // Europe/Amsterdam moves from UTC+1 to UTC+2
    const moments = [change - 3_600_000, change - 1, change, change + 1, change + 59_999, change - 1, change + 86_400_000 * 220];
    const names = moments.map((at) => zoneShort('Europe/Amsterdam', at));
    expect(names).toEqual(moments.map((at) => fresh('Europe/Amsterdam', at)));
    expect(names[1]).not.toBe(names[2]);
    expect(zoneShort('Asia/Tokyo', change)).toBe(fresh('Asia/Tokyo', change));
  });

  it('names a zone in column headers by its short name only when its offset is the same all year', () => {
    const winter = Date.UTC(2026, 0, 15);
    expect(zoneHeading('Europe/Amsterdam', winter)).toBe('Europe/Amsterdam'); // rows at GMT+1 and at GMT+2
    expect(zoneHeading('America/New_York', winter)).toBe('America/New_York');
    expect(zoneHeading('Asia/Tokyo', winter)).toBe('GMT+9');
    expect(zoneHeading('UTC', winter)).toBe('UTC');
    expect(zoneHeading('Pacific/Kiritimati', winter)).toBe('GMT+14');
  });
});
