import { describe, expect, it } from 'vitest';
import { DigitTable } from '../../server/scrub/digit-table.ts';
import { PhoneIndex } from '../../server/scrub/phone-index.ts';

describe('scrub digit table', () => {
  it('answers as a Map for numbers, leading zeros, 16+ digits and growth past many entries', () => {
    const table = new DigitTable();
    const map = new Map<string, number>();
    const keys = ['1', '0', '00', '012', '12', '999999999999999', '9999999999999999', '1234567890123456789012345678901', '31205550198'];
    for (let i = 0; i < 5_000; i++) keys.push(String(600_000_000 + i * 7919), `0${i}`);
    keys.forEach((k, i) => {
      table.set(k, i + 1);
      map.set(k, i + 1);
    });
    table.set('12', 77);
    map.set('12', 77);
    expect(table.size).toBe(map.size);
    expect([...map.keys()].filter((k) => table.get(k) !== map.get(k))).toEqual([]);
    for (const k of ['2', '0012', '120', '99999999999999', '600000001', '']) expect(table.get(k)).toBe(map.get(k));
    expect(new Set(table.digits())).toEqual(new Set(map.keys()));
  });

  it('PhoneIndex: Equal wins, then the longest prefix (leading-zero prefixes too)', () => {
    const index = new PhoneIndex();
    index.add(1, '31205550198', 'Equal');
    index.add(2, '3120', 'StartWith');
    index.add(3, '312055', 'StartWith');
    index.add(4, '020', 'StartWith');
    index.seal();
    expect(index.match('31205550198')).toEqual({ id: 1, number: '31205550198', type: 'Equal' });
    expect(index.match('31205550199')).toEqual({ id: 3, number: '312055', type: 'StartWith' });
    expect(index.match('31201111111')).toEqual({ id: 2, number: '3120', type: 'StartWith' });
    expect(index.match('0201234')).toEqual({ id: 4, number: '020', type: 'StartWith' });
    expect(index.match('4420')).toBeUndefined();
  });
});
