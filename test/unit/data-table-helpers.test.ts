// The renderer's globals (window.cati) for the renderer modules this test imports.
import type {} from '../../renderer/env.d.ts';
import { describe, expect, it } from 'vitest';
import { exportTable, filterRows, sortLocally, type DataColumn } from '../../renderer/src/components/table/data-table.ts';

interface Row { id: number; name: string; calls: number | null }
const rows: Row[] = [
  { id: 1, name: 'Anna', calls: 12 },
  { id: 2, name: 'ben', calls: 3 },
  { id: 3, name: 'Cara', calls: null },
];
const columns: DataColumn<Row>[] = [
  { key: 'name', label: 'Interviewer', sort: true },
  { key: 'calls', label: 'Calls', sort: true, text: (r) => (r.calls === null ? '–' : r.calls), sortValue: (r) => r.calls },
  { key: 'actions', label: 'Actions', noExport: true },
];

describe('data table helpers', () => {
  it('filters by the shown text of any column, case-insensitively; an empty filter keeps every row', () => {
    expect(filterRows(rows, columns, 'BEN').map((r) => r.id)).toEqual([2]);
    expect(filterRows(rows, columns, '–').map((r) => r.id)).toEqual([3]);
    expect(filterRows(rows, columns, '  ').map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('sorts by a column\'s sort value (nulls first), either way, and keeps the order for an unknown column', () => {
    expect(sortLocally(rows, columns, 'calls', false).map((r) => r.id)).toEqual([3, 2, 1]);
    expect(sortLocally(rows, columns, 'calls', true).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(sortLocally(rows, columns, 'name', false).map((r) => r.name)).toEqual(['Anna', 'ben', 'Cara']);
    expect(sortLocally(rows, columns, 'nope', false).map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('exports the shown columns as shown (not the controls), then the extra columns', () => {
    expect(exportTable(columns, rows, [{ label: 'Id', value: (r) => r.id }])).toEqual({
      header: ['Interviewer', 'Calls', 'Id'],
      rows: [['Anna', 12, 1], ['ben', 3, 2], ['Cara', '–', 3]],
    });
  });
});
