import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../renderer/src/api/sse.ts';
import { breakLevel, countFloor, formatDuration, type FloorRow } from '../../renderer/src/stores/floor-format.ts';

describe('the renderer SSE parser', () => {
  it('parses events with ids, names, several data lines and comments', () => {
    const p = createSseParser();
    const out = p.push(': connected\n\nid: 7\nevent: call\ndata: {"action":"opened",\ndata: "id":3}\n\n: keep-alive\n\n');
    expect(out).toEqual([{ id: '7', event: 'call', data: '{"action":"opened",\n"id":3}' }]);
  });

  it('joins events split anywhere across chunks, CRLF halves included', () => {
    const text = 'id: 1\r\nevent: session\r\ndata: {"a":1}\r\n\r\nid: 2\r\ndata: x\r\n\r\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = createSseParser();
      const out = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(out, `cut at ${cut}`).toEqual([
        { id: '1', event: 'session', data: '{"a":1}' },
        { id: '2', event: 'message', data: 'x' },
      ]);
    }
  });

  it('keeps the last id for events without one, ignores unknown fields and dispatches nothing without data', () => {
    const p = createSseParser();
    expect(p.push('id: 5\nevent: reset\ndata: {}\n\nretry: 100\nfoo: bar\n\nevent: break\n\ndata:no-space\n\n')).toEqual([
      { id: '5', event: 'reset', data: '{}' },
      { id: '5', event: 'message', data: 'no-space' },
    ]);
    expect(p.push('data: unfinished')).toEqual([]);
    expect(p.push('\n\n')).toEqual([{ id: '5', event: 'message', data: 'unfinished' }]);
  });
});

describe('floor figures', () => {
  const row = (over: Partial<FloorRow>): FloorRow => ({
    SessionId: 1, InterviewerId: 1, Name: 'a', DisplayName: null, CallCenterId: 1, LoginTime: '2026-01-01T08:00:00Z', State: 'OnBreak',
    StateSince: '2026-01-01T09:00:00Z', BreakTypeId: 1, BreakTypeName: 'Coffee', BreakOverLimit: false, SurveyId: null, CallsToday: 2, CompletesToday: 1,
    IsLocked: false, ...over,
  });
  const at = (min: number) => Date.parse('2026-01-01T09:00:00Z') + min * 60_000;

  it('is ok, near from 80 % of the limit, over past it or when the server says so', () => {
    expect(breakLevel(row({}), 15, at(11.9))).toBe('ok');
    expect(breakLevel(row({}), 15, at(12))).toBe('near');
    expect(breakLevel(row({}), 15, at(15))).toBe('near');
    expect(breakLevel(row({}), 15, at(15.1))).toBe('over');
    expect(breakLevel(row({}), null, at(600))).toBe('ok');
    expect(breakLevel(row({ BreakOverLimit: true }), null, at(1))).toBe('over');
    expect(breakLevel(row({ State: 'OnCall' }), 15, at(60))).toBe('ok');
  });

  it('counts states, over-limit breaks and the day', () => {
    const rows = [row({}), row({ State: 'OnCall', CallsToday: 5 }), row({ State: 'Waiting', CompletesToday: 3 }), row({ BreakOverLimit: true })];
    expect(countFloor(rows, (r) => breakLevel(r, 15, at(1)))).toEqual({
      loggedIn: 4, onCall: 1, waiting: 1, onBreak: 2, overLimit: 1, callsToday: 11, completesToday: 6,
    });
    expect(formatDuration(67)).toBe('1:07');
    expect(formatDuration(3727)).toBe('1:02:07');
  });
});
