/** The columns of Surveys today: one list for the table's counts and the export (CONTRACT §17: the export is the table). */
import { CATEGORY_LABELS, type OutcomeCategory } from '../../stores/report-lookups.ts';
import { formatRate, formatShare } from '../../stores/report-math.ts';
import type { SurveyDayRow } from '../../stores/surveys-today.ts';

/** The count columns: all calls, then one per outcome category, by its label. */
export const COUNTS: { key: 'Calls' | OutcomeCategory; label: string }[] = [
  { key: 'Calls', label: 'Calls' },
  ...(['Complete', 'Refusal', 'NoContact', 'Appointment', 'Ineligible', 'Other'] as const).map((c) => ({ key: c, label: CATEGORY_LABELS[c] })),
];

/** The progress cell's text, as the table shows it. */
export function progressText(r: SurveyDayRow): string {
  if (!r.SampleSize) return r.SurveyId === null ? '' : 'no sample size';
  if (r.CompletesSoFar === null) return 'counting…';
  return `${r.CompletesSoFar} / ${r.SampleSize} (${formatShare(r.Progress)})`;
}

/** The export: the table's columns in its order (survey by name, counts, completes per hour, progress), the totals row last, then the survey id. */
export function surveysTodayExport(rows: readonly SurveyDayRow[], totals: SurveyDayRow) {
  const line = (r: SurveyDayRow) => [r.SurveyName, ...COUNTS.map((c) => r[c.key]), formatRate(r.CompletesPerHour), progressText(r), r.SurveyId ?? ''];
  return {
    header: ['Survey', ...COUNTS.map((c) => c.label), 'Completes / hour', 'Progress', 'Survey id'],
    rows: [...rows.map(line), line(totals)],
  };
}
