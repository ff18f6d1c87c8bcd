/** The columns of each History tab: what a supervisor reads, formatted from the API's rows. */
import { dateTimeCell, durationCell, type ExportValue } from '../../api/export-cells.ts';
import { formatTime } from '../../api/odata.ts';
import { t } from '../../i18n/index.ts';
import { zoneHeading } from '../../stores/floor-format.ts';
import type { HistoryRow, HistoryTab } from '../../stores/history.ts';
import type { DataColumn, ExtraColumn } from '../table/data-table.ts';

export interface HistoryColumn {
  label: string;
  value(row: HistoryRow, names: NameLookups): string;
  /** The exported cell when it is a time or a duration (typed in XLSX); default: `value`. */
  exportValue?(row: HistoryRow): ExportValue;
  mono?: boolean;
  /** The property the column sorts by (`$orderby`); none = not sortable. */
  field?: string;
  /** The id behind a name (`InterviewerId`), exported as an extra column after the shown ones, headed `idLabel`. */
  idField?: string;
  idLabel?: string;
}

export interface NameLookups {
  interviewer(id: unknown): string;
  survey(id: unknown): string;
  outcome(code: unknown): string;
  centre(id: unknown): string;
}

/** Seconds as `m:ss` or `h:mm:ss`; empty for null. */
export function formatSeconds(value: unknown): string {
  if (typeof value !== 'number') return '';
  const h = Math.floor(value / 3600);
  const m = Math.floor((value % 3600) / 60);
  const s = String(value % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const col = (label: string, field: string, mono = false): HistoryColumn => ({ label, value: (r) => text(r[field]), mono, field });
/** A time column: shown in the display zone (the call centre's; the range's zone too), named in the header. */
const timeCol = (label: string, field: string, zone: string | null): HistoryColumn => {
  const value = (r: HistoryRow) => formatTime(r[field] as string | null, zone);
  return { label: t('history.col.withZone', { label, zone: zoneHeading(zone) }), value, exportValue: (r) => dateTimeCell(r[field] as string | null, zone, value(r)), field };
};
const secondsCol = (label: string, field: string): HistoryColumn =>
  ({ label, value: (r) => formatSeconds(r[field]), exportValue: (r) => durationCell(r[field] as number | null, formatSeconds(r[field])), field });
/** A session's length in seconds, null while it is open. */
const sessionSeconds = (r: HistoryRow) => (r.LogoutTime ? Math.round((Date.parse(r.LogoutTime as string) - Date.parse(r.LoginTime as string)) / 1000) : null);
const named = (label: string, field: string, name: (n: NameLookups, v: unknown) => string, idLabel: string): HistoryColumn =>
  ({ label, value: (r, n) => name(n, r[field]), field, idField: field, idLabel });
const interviewerCol = (): HistoryColumn => named(t('history.col.interviewer'), 'InterviewerId', (n, v) => n.interviewer(v), t('history.col.interviewerId'));
const surveyCol = (): HistoryColumn => named(t('history.col.survey'), 'SurveyId', (n, v) => n.survey(v), t('history.col.surveyId'));
const outcomeCol = (): HistoryColumn => named(t('history.col.outcome'), 'ExtendedStatus', (n, v) => n.outcome(v), t('history.col.outcomeCode'));
const centreCol = (): HistoryColumn => named(t('history.col.centre'), 'CallCenterId', (n, v) => n.centre(v), t('history.col.centreId'));

/** The columns of a plain tab, times in `zone` (null = this computer's). */
export function historyColumns(tab: Exclude<HistoryTab, 'variables'>, zone: string | null): HistoryColumn[] {
  const tabs: Record<Exclude<HistoryTab, 'variables'>, HistoryColumn[]> = {
    calls: [
      timeCol(t('history.col.time'), 'Time', zone), surveyCol(), col(t('history.col.interview'), 'InterviewId'), interviewerCol(), col(t('history.col.number'), 'TelephoneNumber', true),
      outcomeCol(), secondsCol(t('history.col.duration'), 'Duration'), secondsCol(t('history.col.waiting'), 'WaitingTime'), centreCol(),
    ],
    breaks: [
      timeCol(t('history.col.time'), 'Time', zone), interviewerCol(), col(t('history.col.break'), 'BreakTypeName'), secondsCol(t('history.col.duration'), 'Duration'),
      { label: t('history.col.paid'), value: (r) => (r.IsPaid === null || r.IsPaid === undefined ? '' : r.IsPaid ? t('history.yes') : t('history.no')), field: 'IsPaid' }, surveyCol(), centreCol(),
    ],
    sessions: [
      col(t('history.col.session'), 'SessionId'), interviewerCol(), timeCol(t('history.col.login'), 'LoginTime', zone),
      {
        label: t('history.col.withZone', { label: t('history.col.logout'), zone: zoneHeading(zone) }),
        value: (r) => (r.LogoutTime ? formatTime(r.LogoutTime as string, zone) : t('history.stillLoggedIn')),
        exportValue: (r) => dateTimeCell(r.LogoutTime as string | null, zone, r.LogoutTime ? formatTime(r.LogoutTime as string, zone) : t('history.stillLoggedIn')),
        field: 'LogoutTime',
      },
      {
        label: t('history.col.duration'),
        value: (r) => formatSeconds(sessionSeconds(r)),
        exportValue: (r) => durationCell(sessionSeconds(r), formatSeconds(sessionSeconds(r))),
      },
      centreCol(),
    ],
  };
  return tabs[tab];
}

/** Columns of the "with variables" view: the event, then one column per requested variable; times in `zone`. */
export function variablesColumns(variables: string[], zone: string | null): HistoryColumn[] {
  const value = (name: string) => (r: HistoryRow) => {
    const vars = (r.Variables ?? []) as { Name: string; Value: string | null }[];
    return text(vars.find((v) => v.Name === name)?.Value);
  };
  return [
    col('#', 'NumberInOrder'), col(t('history.col.event'), 'EventType'), timeCol(t('history.col.time'), 'Time', zone), col(t('history.col.survey'), 'SurveyName'), col(t('history.col.interviewer'), 'InterviewerName'),
    col(t('history.col.number'), 'TelephoneNumber', true), col(t('history.col.interview'), 'InterviewId'), outcomeCol(), secondsCol(t('history.col.duration'), 'Duration'),
    ...variables.map((name) => ({ label: name, value: value(name) })),
  ];
}

/** The lookups behind the names shown: interviewer, survey (name and id), outcome (label and code), centre. */
export function nameLookups(lists: {
  interviewerName: (id: unknown) => string;
  surveys: readonly { SurveyId: string; SurveyName: string }[];
  outcomes: readonly { Code: number; Name: string }[];
  callCenters: readonly { CallCenterId: number; Name: string }[];
}): NameLookups {
  const surveys = new Map(lists.surveys.map((s) => [s.SurveyId, `${s.SurveyName} (${s.SurveyId})`]));
  const outcomes = new Map(lists.outcomes.map((o) => [o.Code, `${o.Name} (${o.Code})`]));
  const centres = new Map(lists.callCenters.map((c) => [c.CallCenterId, c.Name]));
  return {
    interviewer: lists.interviewerName,
    survey: (id) => (typeof id === 'string' ? (surveys.get(id) ?? id) : ''),
    outcome: (code) => (typeof code === 'number' ? (outcomes.get(code) ?? String(code)) : ''),
    centre: (id) => (typeof id === 'number' ? (centres.get(id) ?? String(id)) : ''),
  };
}

/** The columns of a History tab for the data table: shown names and labels, sort fields, and the ids as extra export columns. */
export function historyTableColumns(columns: readonly HistoryColumn[], names: NameLookups) {
  const raw = (v: unknown) => (v === null || v === undefined ? '' : (v as string | number));
  return {
    columns: columns.map((c, i): DataColumn<HistoryRow> => ({
      key: String(i), label: c.label, text: (r) => c.value(r, names), exportValue: c.exportValue, sort: c.field, class: c.mono ? 'mono' : undefined,
    })),
    extra: columns.filter((c) => c.idField).map((c): ExtraColumn<HistoryRow> => ({ label: c.idLabel ?? c.idField!, value: (r) => raw(r[c.idField!]) })),
  };
}
