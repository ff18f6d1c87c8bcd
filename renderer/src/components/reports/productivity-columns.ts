/** The columns of the Productivity report: one list for the table, its sort keys and the export. */
import { formatHours, formatRate, formatShare, type ProductivityRow } from '../../stores/report-math.ts';
import type { BreakType } from '../../stores/productivity.ts';

/** One column: its sort key, header, the text shown, and the number (or text) exported. */
export interface ReportColumn {
  key: string;
  label: string;
  /** The export's header (with the unit of `exported`). */
  exportLabel: string;
  numeric: boolean;
  shown(r: ProductivityRow): string;
  exported(r: ProductivityRow): string | number | null;
}

const round = (v: number | null, digits: number) => (v === null ? null : Number(v.toFixed(digits)));
const hours = (s: number) => round(s / 3600, 2);

function column(key: string, label: string, shown: ReportColumn['shown'], exported: ReportColumn['exported'], exportLabel = label): ReportColumn {
  return { key, label, exportLabel, numeric: key !== 'Interviewer', shown, exported };
}

/**
 * Interviewer, login time, calls and completes with their rates, refusal share, talk and waiting, then each break
 * type: in the table one column (`2 · 21`: breaks · minutes, sorted by minutes), in the export two (count, minutes).
 */
export function productivityColumns(breakTypes: readonly BreakType[], use: 'table' | 'export' = 'table'): ReportColumn[] {
  const fixed = [
    column('Interviewer', 'Interviewer', (r) => r.Interviewer, (r) => r.Interviewer),
    column('LoginSeconds', 'Login time', (r) => formatHours(r.LoginSeconds), (r) => hours(r.LoginSeconds), 'Login hours'),
    column('Calls', 'Calls', (r) => String(r.Calls), (r) => r.Calls),
    column('CallsPerHour', 'Calls / hour', (r) => formatRate(r.CallsPerHour), (r) => round(r.CallsPerHour, 2)),
    column('Completes', 'Completes', (r) => String(r.Completes), (r) => r.Completes),
    column('CompletesPerHour', 'Completes / hour', (r) => formatRate(r.CompletesPerHour), (r) => round(r.CompletesPerHour, 2)),
    column('RefusalShare', 'Refusal share', (r) => formatShare(r.RefusalShare), (r) => round(r.RefusalShare, 3)),
    column('TalkSeconds', 'Talk time', (r) => formatHours(r.TalkSeconds), (r) => hours(r.TalkSeconds), 'Talk hours'),
    column('WaitingSeconds', 'Waiting time', (r) => formatHours(r.WaitingSeconds), (r) => hours(r.WaitingSeconds), 'Waiting hours'),
  ];
  const breaks = breakTypes.flatMap((b) => {
    const f = (r: ProductivityRow) => r.Breaks[b.BreakTypeId] ?? { count: 0, seconds: 0 };
    const minutes = (r: ProductivityRow) => Math.round(f(r).seconds / 60);
    const count = column(`break:${b.BreakTypeId}:count`, `${b.Name}: breaks`, (r) => String(f(r).count), (r) => f(r).count);
    const time = column(`break:${b.BreakTypeId}:seconds`, `${b.Name}: minutes`, (r) => String(minutes(r)), (r) => round(f(r).seconds / 60, 1));
    if (use === 'export') return [count, time];
    return [{ ...time, label: `${b.Name} (breaks · min)`, shown: (r: ProductivityRow) => (f(r).count ? `${f(r).count} · ${minutes(r)}` : '–') }];
  });
  return [...fixed, ...breaks];
}

/** The export's header and rows (the table's order, then the totals row). */
export function exportTable(columns: readonly ReportColumn[], rows: readonly ProductivityRow[], totals: ProductivityRow | null) {
  return { header: columns.map((c) => c.exportLabel), rows: [...rows, ...(totals ? [totals] : [])].map((r) => columns.map((c) => c.exported(r))) };
}
