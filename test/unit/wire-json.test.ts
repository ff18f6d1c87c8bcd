/**
 * The per-model serializer (wire-json.ts) writes exactly `JSON.stringify(formatEntity(...))`: every EDM type,
 * nulls, escapes, virtual properties, $select, metadata levels and IEEE754Compatible, and date-times over the
 * whole range Date supports (the fast ISO path included).
 */
import { describe, expect, it } from 'vitest';
import { formatEntity } from '../../server/odata/format.ts';
import type { JsonFormat } from '../../server/odata/format-negotiation.ts';
import type { EntityModel } from '../../server/odata/model.ts';
import { entityWriter } from '../../server/odata/wire-json.ts';

const model: EntityModel = {
  typeName: 'All',
  setName: 'all',
  key: ['Id'],
  etagColumn: 'version',
  properties: [
    { name: 'Id', column: 'id', type: 'Edm.Int64' },
    { name: 'Small', column: 's', type: 'Edm.Int32', nullable: true },
    { name: 'Text', column: 't', type: 'Edm.String', nullable: true },
    { name: 'Kind', column: 'k', type: 'Edm.String', enumName: 'Kind', enumValues: ['A', 'B'] },
    { name: 'Flag', column: 'f', type: 'Edm.Boolean', nullable: true },
    { name: 'At', column: 'a', type: 'Edm.DateTimeOffset', nullable: true },
    { name: 'Price', column: 'p', type: 'Edm.Decimal', nullable: true },
    { name: 'Ratio', column: 'r', type: 'Edm.Double', nullable: true },
    { name: 'Secret', type: 'Edm.String', virtual: true, writeOnly: true },
    { name: 'Tags', type: 'Edm.String', collection: true, virtual: true },
  ],
};

const formats: JsonFormat[] = [
  { kind: 'json', metadata: 'minimal', ieee754: false },
  { kind: 'json', metadata: 'none', ieee754: false },
  { kind: 'json', metadata: 'minimal', ieee754: true },
];

let seed = 12345;
const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const TEXTS = ['', 'plain', 'O\'Neil "quoted" \\ back', 'line\nbreak\ttab\u0001', '\u00e9\u201d\ud83d\ude00', '\ud800 lone', '</script>'];
const TIMES = [0, -1, 1762074900123, 253402300799999, 253402300800000, -62167219200001, 8.64e15, -8.64e15, 8.64e15 + 1, 1.5, '2026-11-02T09:15:00.000Z', NaN];

describe('wire-json entity writer', () => {
  it('writes what JSON.stringify(formatEntity(...)) writes', () => {
    for (let i = 0; i < 3000; i++) {
      const row: Record<string, unknown> = {
        Id: Math.floor(next() * 1e12), Small: i % 5 ? Math.floor(next() * 1e6) - 5e5 : null, Text: i % 9 ? TEXTS[i % TEXTS.length] : null,
        Kind: i % 2 ? 'A' : 'B', Flag: [0, 1, null, true, false][i % 5], At: i < TIMES.length ? TIMES[i] : i % 11 ? Math.floor((next() - 0.5) * 1.7e16) : null,
        Price: i % 7 ? next() * 1000 : null, Ratio: [0.1, -0, 1e21, null][i % 4], '@etag': i % 6 ? i % 3 : null,
      };
      if (i % 3 === 0) row.Tags = ['a', `b${i}`];
      for (const format of formats) {
        for (const select of [undefined, ['At', 'Text'], ['Tags', 'Id']]) {
          const want = JSON.stringify(formatEntity(model, row, select, { format, serviceRoot: 'http://x/cati' }));
          expect(entityWriter(model, select, format)!(row)).toBe(want);
        }
      }
    }
  });

  it('leaves full metadata to the generic formatter', () => {
    expect(entityWriter(model, undefined, { kind: 'json', metadata: 'full', ieee754: false })).toBeUndefined();
  });
});
