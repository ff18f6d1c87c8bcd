/** The columns of Surveys today: the count columns and the progress text, shared by the table and its export (docs/screens.md#truth: the export is the table). */
import { t } from '../../i18n/index.ts';
import { CATEGORY_LABELS, type OutcomeCategory } from '../../stores/report-lookups.ts';
import { formatNumber } from '../../i18n/index.ts';
import { formatShare } from '../../stores/report-math.ts';
import type { SurveyDayRow } from '../../stores/surveys-today.ts';

/** The count columns: all calls, then one per outcome category, by its label (in the language shown, read when shown). */
export const COUNTS: { key: 'Calls' | OutcomeCategory; readonly label: string }[] = [
  { key: 'Calls', get label() { return t('history.tab.calls'); } },
  ...(['Complete', 'Refusal', 'NoContact', 'Appointment', 'Ineligible', 'Other'] as const).map((c) => ({ key: c, get label() { return t(CATEGORY_LABELS[c]); } })),
];

/** The progress cell's text, as the table shows it. */
export function progressText(r: SurveyDayRow): string {
  if (!r.SampleSize) return r.SurveyId === null ? '' : t('surveysToday.noSampleSize');
  if (r.CompletesSoFar === null) return t('surveysToday.counting');
  return `${formatNumber(r.CompletesSoFar)} / ${formatNumber(r.SampleSize)} (${formatShare(r.Progress)})`;
}
