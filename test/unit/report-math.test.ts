// The renderer's globals (window.cati) for the renderer modules this test imports.
import type {} from '../../renderer/env.d.ts';
import { describe, expect, it } from 'vitest';
import { productivityColumns } from '../../renderer/src/components/reports/productivity-columns.ts';
import { exportTable } from '../../renderer/src/components/table/data-table.ts';
import { formatHours, formatRate, formatShare, loginSeconds, perHour, productivityRows, share, tallyByKey, withOpenBreaks } from '../../renderer/src/stores/report-math.ts';
import type { Outcome } from '../../renderer/src/stores/report-lookups.ts';
import { hourlySeries, hourlySummary, wholeHourOffset, zoneDays, zoneLabel } from '../../renderer/src/stores/zone-hours.ts';

const outcomes: Outcome[] = [
  { Code: 1, Name: 'Complete', Category: 'Complete' },
  { Code: 2, Name: 'No answer', Category: 'NoContact' },
  { Code: 5, Name: 'Refusal', Category: 'Refusal' },
  { Code: 6, Name: 'Appointment', Category: 'Appointment' },
];
const H = 3_600_000;

describe('tallyByKey: outcome buckets summed per key by category', () => {
  it('counts each code in its category, unknown codes and null as Other, and sums talk and waiting (null as 0)', () => {
    const rows = [
      { SurveyId: 'p1', ExtendedStatus: 1, Calls: 3, Talk: 600, Waiting: 30 },
      { SurveyId: 'p1', ExtendedStatus: 5, Calls: 2, Talk: 40, Waiting: null },
      { SurveyId: 'p1', ExtendedStatus: 99, Calls: 1, Talk: null, Waiting: 5 },
      { SurveyId: 'p1', ExtendedStatus: null, Calls: 1 },
      { SurveyId: 'p2', ExtendedStatus: 2, Calls: 4, Talk: 0, Waiting: 80 },
    ];
    const t = tallyByKey(rows, (r) => r.SurveyId, outcomes);
    expect(t.get('p1')).toEqual({ Complete: 3, Refusal: 2, NoContact: 0, Appointment: 0, Ineligible: 0, Other: 2, Calls: 7, Talk: 640, Waiting: 35 });
    expect(t.get('p2')).toMatchObject({ NoContact: 4, Calls: 4, Waiting: 80 });
  });

  it('leaves out rows whose key is null (calls without an interviewer)', () => {
    expect([...tallyByKey([{ InterviewerId: null, ExtendedStatus: 1, Calls: 2 }], (r) => r.InterviewerId, outcomes).keys()]).toEqual([]);
  });
});

describe('rates', () => {
  it('per hour and shares, null when there is nothing to divide by; formats', () => {
    expect(perHour(3, 5400)).toBe(2);
    expect(perHour(3, 0)).toBeNull();
    expect(share(1, 4)).toBe(0.25);
    expect(share(1, 0)).toBeNull();
    expect([formatRate(2), formatRate(null), formatShare(0.256), formatShare(null), formatHours(27_000 + 90)]).toEqual(['2.0', '–', '26%', '–', '7:32']);
  });
});

describe('loginSeconds: sessions clipped to the range', () => {
  const start = Date.parse('2026-11-02T00:00:00Z');
  const end = start + 24 * H;
  const at = (h: number) => new Date(start + h * H).toISOString();
  it('clips at both ends, counts an open session up to now, ignores sessions outside', () => {
    const sessions = [
      { InterviewerId: 1, LoginTime: at(-2), LogoutTime: at(3) },
      { InterviewerId: 1, LoginTime: at(20), LogoutTime: at(26) },
      { InterviewerId: 2, LoginTime: at(8), LogoutTime: null },
      { InterviewerId: 3, LoginTime: at(-5), LogoutTime: at(-1) },
    ];
    const s = loginSeconds(sessions, start, end, start + 10 * H);
    expect(Object.fromEntries(s)).toEqual({ 1: 7 * 3600, 2: 2 * 3600 });
    // An open session when the range ended before now counts to the end of the range.
    expect(loginSeconds(sessions, start, end, end + 5 * H).get(2)).toBe(16 * 3600);
  });
});

describe('withOpenBreaks: breaks in progress count up to now', () => {
  const at = (iso: string) => Date.parse(iso);
  it('adds the time since an open break began (to now, or the range end when that is earlier) to its bucket, and leaves closed ones alone', () => {
    const buckets = [
      { InterviewerId: 7, BreakTypeId: 1, Breaks: 2, Seconds: 600 }, // one closed 10-minute break and one open
      { InterviewerId: 8, BreakTypeId: 2, Breaks: 1, Seconds: null }, // only an open one
      { InterviewerId: 9, BreakTypeId: 1, Breaks: 1, Seconds: 300 },
    ];
    const open = [
      { InterviewerId: 7, BreakTypeId: 1, Time: '2026-11-27T10:00:00Z' },
      { InterviewerId: 8, BreakTypeId: 2, Time: '2026-11-27T10:20:00Z' },
    ];
    const now = at('2026-11-27T10:25:00Z');
    expect(withOpenBreaks(buckets, open, [], at('2026-11-28T00:00:00Z'), now).map((b) => b.Seconds)).toEqual([600 + 1500, 300, 300]);
    // A range that ended at 10:15: the open break counts to the end, the one begun after it adds nothing.
    expect(withOpenBreaks(buckets, open, [], at('2026-11-27T10:15:00Z'), now).map((b) => b.Seconds)).toEqual([600 + 900, null, 300]);
    expect(buckets[0]!.Seconds).toBe(600); // the input is not changed
  });

  it('ends a break left open at the logout of the session it began in', () => {
    const sessions = [
      { InterviewerId: 7, LoginTime: '2026-11-27T08:00:00Z', LogoutTime: '2026-11-27T10:10:00Z' },
      { InterviewerId: 7, LoginTime: '2026-11-27T10:20:00Z', LogoutTime: null },
    ];
    const buckets = [{ InterviewerId: 7, BreakTypeId: 1, Breaks: 1, Seconds: null }];
    const open = [{ InterviewerId: 7, BreakTypeId: 1, Time: '2026-11-27T10:00:00Z' }];
    expect(withOpenBreaks(buckets, open, sessions, at('2026-11-28T00:00:00Z'), at('2026-11-27T12:00:00Z'))[0]!.Seconds).toBe(600);
  });
});

describe('productivityRows: per interviewer and totals', () => {
  const calls = tallyByKey(
    [
      { InterviewerId: 1, ExtendedStatus: 1, Calls: 4, Talk: 1200, Waiting: 100 },
      { InterviewerId: 1, ExtendedStatus: 5, Calls: 1, Talk: 30, Waiting: 10 },
      { InterviewerId: 2, ExtendedStatus: 2, Calls: 5, Talk: 0, Waiting: 50 },
    ],
    (r) => r.InterviewerId,
    outcomes,
  );
  const login = new Map([[1, 7200], [2, 3600], [3, 1800]]);
  const breaks = [
    { InterviewerId: 1, BreakTypeId: 7, Breaks: 2, Seconds: 600 },
    { InterviewerId: 3, BreakTypeId: 7, Breaks: 1, Seconds: null },
    { InterviewerId: 3, BreakTypeId: 8, Breaks: 1, Seconds: 900 },
  ];
  const nameOf = (id: number) => `agent${id}`;

  it('one row per interviewer with calls, login time or breaks; rates per login hour; totals recomputed from sums', () => {
    const { rows, totals } = productivityRows({ calls, login, breaks, nameOf });
    const one = rows.find((r) => r.InterviewerId === 1)!;
    expect(one).toMatchObject({ Interviewer: 'agent1', Calls: 5, Completes: 4, Refusals: 1, CallsPerHour: 2.5, CompletesPerHour: 2, RefusalShare: 0.2, TalkSeconds: 1230, WaitingSeconds: 110 });
    expect(one.Breaks).toEqual({ 7: { count: 2, seconds: 600 } });
    expect(rows.find((r) => r.InterviewerId === 3)).toMatchObject({ Calls: 0, CallsPerHour: 0, RefusalShare: null, Breaks: { 7: { count: 1, seconds: 0 }, 8: { count: 1, seconds: 900 } } });
    expect(rows.map((r) => r.InterviewerId).sort()).toEqual([1, 2, 3]);
    expect(totals).toMatchObject({ Interviewer: 'Total', LoginSeconds: 12_600, Calls: 10, Completes: 4, Refusals: 1, RefusalShare: 0.1, TalkSeconds: 1230, WaitingSeconds: 160 });
    expect(totals.CallsPerHour).toBeCloseTo(10 / 3.5);
    expect(totals.Breaks).toEqual({ 7: { count: 3, seconds: 600 }, 8: { count: 1, seconds: 900 } });
  });

  it('`only` keeps the named interviewers, in rows and totals alike', () => {
    const { rows, totals } = productivityRows({ calls, login, breaks, nameOf, only: new Set([2, 3]) });
    expect(rows.map((r) => r.InterviewerId).sort()).toEqual([2, 3]);
    expect(totals).toMatchObject({ Calls: 5, Completes: 0, LoginSeconds: 5400 });
    expect(totals.Breaks).toEqual({ 7: { count: 1, seconds: 0 }, 8: { count: 1, seconds: 900 } });
  });

  it('exports the table as shown: its columns and headers, one per break type, totals last', () => {
    const { rows, totals } = productivityRows({ calls, login, breaks, nameOf, only: new Set([1]) });
    const columns = productivityColumns([{ BreakTypeId: 7, Name: 'Coffee' }]);
    const t = exportTable(columns, [...rows, totals]);
    expect(t.header).toEqual([
      'Interviewer', 'Login time', 'Calls', 'Calls / hour', 'Completes', 'Completes / hour', 'Refusal share', 'Talk time', 'Waiting time', 'Coffee (breaks · min)',
    ]);
    // What the screen shows (and a CSV writes) ...
    const shown = t.rows.map((r) => r.map((v) => String(typeof v === 'object' ? v.text : v)));
    expect(shown).toEqual([
      ['agent1', '2:00', '5', '2.5', '4', '2.0', '20%', '0:21', '0:02', '2 · 10'],
      ['Total', '2:00', '5', '2.5', '4', '2.0', '20%', '0:21', '0:02', '2 · 10'],
    ]);
    // ... and the figures as numbers an XLSX types: counts, rates and shares, hours as fractions of a day.
    expect(t.rows[0]!.slice(1, 9).map((v) => (typeof v === 'object' ? v.value : v))).toEqual([2 / 24, 5, 2.5, 4, 2, 0.2, 21 / 1440, 2 / 1440]);
    expect(columns.at(-1)!.key).toBe('break:7:seconds');
  });
});

describe('zone days and hours', () => {
  it("today and yesterday are the centre's midnights (DST day of 25 hours included)", () => {
    const now = Date.parse('2026-10-25T15:00:00Z'); // Europe/Amsterdam leaves summer time that night
    const d = zoneDays('Europe/Amsterdam', now);
    expect(d.today.map((t) => new Date(t).toISOString())).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect(d.yesterday.map((t) => new Date(t).toISOString())).toEqual(['2026-10-23T22:00:00.000Z', '2026-10-24T22:00:00.000Z']);
  });

  it('places UTC hour buckets on the centre clock when whole hours from UTC, the repeated DST hour summed', () => {
    const d = zoneDays('Europe/Amsterdam', Date.parse('2026-10-25T15:00:00Z'));
    const s = hourlySeries(
      {
        today: [
          { Day: '2026-10-24', Hour: 22, Calls: 2 }, // 00:00 local
          { Day: '2026-10-25', Hour: 0, Calls: 1 }, // 02:00 CEST
          { Day: '2026-10-25', Hour: 1, Calls: 4 }, // 02:00 CET, again
          { Day: '2026-10-25', Hour: 8, Calls: 5 }, // 09:00 CET
        ],
        yesterday: [{ Day: '2026-10-24', Hour: 7, Calls: 3 }], // 09:00 CEST
      },
      'Europe/Amsterdam',
      d,
    );
    expect(s.utc).toBe(false);
    expect(s.labels[0]).toBe('00:00');
    expect([s.today[0], s.today[2], s.today[9], s.yesterday[9]]).toEqual([2, 5, 5, 3]);
    expect(s.today.reduce((a, b) => a + b)).toBe(12);
    expect(hourlySummary(s, 'Europe/Amsterdam')).toBe('Calls per hour (Europe/Amsterdam): 12 today, 3 yesterday; busiest hour today 02:00 with 5 calls.');
  });

  it('keeps UTC hours for a zone half an hour off, slots starting at the UTC hour of the day start', () => {
    const d = zoneDays('Asia/Kolkata', Date.parse('2026-11-02T06:00:00Z'));
    expect(wholeHourOffset('Asia/Kolkata', d.today)).toBe(false);
    const s = hourlySeries({ today: [{ Day: '2026-11-01', Hour: 18, Calls: 1 }, { Day: '2026-11-02', Hour: 5, Calls: 2 }], yesterday: [] }, 'Asia/Kolkata', d);
    expect(s.utc).toBe(true);
    expect(s.labels.slice(0, 2)).toEqual(['18:00', '19:00']);
    expect([s.today[0], s.today[11]]).toEqual([1, 2]);
    expect(zoneLabel('UTC', 0)).toBe('UTC');
  });
});
