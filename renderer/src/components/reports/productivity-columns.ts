/** The columns of the Productivity report: one list for the table, its sort keys and its export (the table as shown). */
import { t } from '../../i18n/index.ts';
import { durationCell, numberCell, type ExportValue } from '../../api/export-cells.ts';
import { formatHours, formatRate, formatShare, type ProductivityRow } from '../../stores/report-math.ts';
import type { BreakType } from '../../stores/productivity.ts';
import type { DataColumn } from '../table/data-table.ts';

const column = (key: string, label: string, text: (r: ProductivityRow) => string): DataColumn<ProductivityRow> =>
  key === 'Interviewer' ? { key, label, text, sort: true, rowHeader: true } : { key, label, text, sort: true, class: 'num' };

/**
 * Interviewer, login time, calls and completes with their rates, refusal share, talk and waiting, then one column per
 * break type (`2 · 21`: breaks · minutes, sorted by minutes). The keys are the store's sort keys.
 */
export function productivityColumns(breakTypes: readonly BreakType[]): DataColumn<ProductivityRow>[] {
  const fixed = [
    column('Interviewer', t('productivity.col.interviewer'), (r) => r.Interviewer),
    column('LoginSeconds', t('productivity.col.login'), (r) => formatHours(r.LoginSeconds)),
    column('Calls', t('productivity.col.calls'), (r) => String(r.Calls)),
    column('CallsPerHour', t('productivity.col.callsPerHour'), (r) => formatRate(r.CallsPerHour)),
    column('Completes', t('productivity.col.completes'), (r) => String(r.Completes)),
    column('CompletesPerHour', t('productivity.col.completesPerHour'), (r) => formatRate(r.CompletesPerHour)),
    column('RefusalShare', t('productivity.col.refusalShare'), (r) => formatShare(r.RefusalShare)),
    column('TalkSeconds', t('productivity.col.talk'), (r) => formatHours(r.TalkSeconds)),
    column('WaitingSeconds', t('productivity.col.waiting'), (r) => formatHours(r.WaitingSeconds)),
  ];
  const breaks = breakTypes.map((b) => {
    const f = (r: ProductivityRow) => r.Breaks[b.BreakTypeId] ?? { count: 0, seconds: 0 };
    return column(`break:${b.BreakTypeId}:seconds`, t('productivity.col.breakType', { name: b.Name }), (r) => (f(r).count ? `${f(r).count} · ${Math.round(f(r).seconds / 60)}` : '–'));
  });
  return [...fixed, ...breaks].map((c) => ({ ...c, exportValue: TYPED[c.key] }));
}

/** Whole minutes, as the screen rounds them, so the XLSX shows the screen's figure. */
const hours = (seconds: number) => durationCell(Math.round(seconds / 60) * 60, formatHours(seconds), '[h]:mm');
/** The typed export cells of the fixed columns: times as durations, counts, rates and shares as numbers. */
const TYPED: Record<string, (r: ProductivityRow) => ExportValue> = {
  LoginSeconds: (r) => hours(r.LoginSeconds),
  Calls: (r) => r.Calls,
  CallsPerHour: (r) => numberCell(r.CallsPerHour, formatRate(r.CallsPerHour), '0.0'),
  Completes: (r) => r.Completes,
  CompletesPerHour: (r) => numberCell(r.CompletesPerHour, formatRate(r.CompletesPerHour), '0.0'),
  RefusalShare: (r) => numberCell(r.RefusalShare, formatShare(r.RefusalShare), '0%'),
  TalkSeconds: (r) => hours(r.TalkSeconds),
  WaitingSeconds: (r) => hours(r.WaitingSeconds),
};

