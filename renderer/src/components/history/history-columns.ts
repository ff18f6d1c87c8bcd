/** The columns of each History tab: what a supervisor reads, formatted from the API's rows. */
import { formatTime } from '../../api/odata.ts';
import { zoneShort } from '../../stores/floor-format.ts';
import type { HistoryRow, HistoryTab } from '../../stores/history.ts';

export interface HistoryColumn {
  label: string;
  value(row: HistoryRow, names: NameLookups): string;
  mono?: boolean;
  /** The property the column sorts by (`$orderby`); none = not sortable. */
  field?: string;
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
/** A time column: shown in this computer's zone (the range's zone too), named in the header. */
const timeCol = (label: string, field: string): HistoryColumn => ({ label: `${label} (${zoneShort(null)})`, value: (r) => formatTime(r[field] as string | null), field });
const secondsCol = (label: string, field: string): HistoryColumn => ({ label, value: (r) => formatSeconds(r[field]), field });
const interviewerCol: HistoryColumn = { label: 'Interviewer', value: (r, n) => n.interviewer(r.InterviewerId), field: 'InterviewerId' };
const surveyCol: HistoryColumn = { label: 'Survey', value: (r, n) => n.survey(r.SurveyId), field: 'SurveyId' };
const outcomeCol: HistoryColumn = { label: 'Outcome', value: (r, n) => n.outcome(r.ExtendedStatus), field: 'ExtendedStatus' };
const centreCol: HistoryColumn = { label: 'Centre', value: (r, n) => n.centre(r.CallCenterId), field: 'CallCenterId' };

export const HISTORY_COLUMNS: Record<Exclude<HistoryTab, 'variables'>, HistoryColumn[]> = {
  calls: [
    timeCol('Time', 'Time'), surveyCol, col('Interview', 'InterviewId'), interviewerCol, col('Number', 'TelephoneNumber', true),
    outcomeCol, secondsCol('Duration', 'Duration'), secondsCol('Waiting', 'WaitingTime'), centreCol,
  ],
  breaks: [
    timeCol('Time', 'Time'), interviewerCol, col('Break', 'BreakTypeName'), secondsCol('Duration', 'Duration'),
    { label: 'Paid', value: (r) => (r.IsPaid === null || r.IsPaid === undefined ? '' : r.IsPaid ? 'Yes' : 'No'), field: 'IsPaid' }, surveyCol, centreCol,
  ],
  sessions: [
    col('Session', 'SessionId'), interviewerCol, timeCol('Login', 'LoginTime'),
    { label: `Logout (${zoneShort(null)})`, value: (r) => (r.LogoutTime ? formatTime(r.LogoutTime as string) : 'still logged in'), field: 'LogoutTime' },
    {
      label: 'Duration',
      value: (r) => (r.LogoutTime ? formatSeconds(Math.round((Date.parse(r.LogoutTime as string) - Date.parse(r.LoginTime as string)) / 1000)) : ''),
    },
    centreCol,
  ],
};

/** Columns of the "with variables" view: the event, then one column per requested variable. */
export function variablesColumns(variables: string[]): HistoryColumn[] {
  const value = (name: string) => (r: HistoryRow) => {
    const vars = (r.Variables ?? []) as { Name: string; Value: string | null }[];
    return text(vars.find((v) => v.Name === name)?.Value);
  };
  return [
    col('#', 'NumberInOrder'), col('Event', 'EventType'), timeCol('Time', 'Time'), col('Survey', 'SurveyName'), col('Interviewer', 'InterviewerName'),
    col('Number', 'TelephoneNumber', true), col('Interview', 'InterviewId'), outcomeCol, secondsCol('Duration', 'Duration'),
    ...variables.map((name) => ({ label: name, value: value(name) })),
  ];
}
