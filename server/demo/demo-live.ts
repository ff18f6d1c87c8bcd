/**
 * `--demo-live`: a simulated dialer that keeps the floor moving. It posts logins, calls (open, then closed by
 * PATCH), breaks and logouts through the real HTTP ingest routes, with an in-memory `cati_integrate` key,
 * at a realistic pace: calls of seconds to many minutes, a few breaks, now and then a logout and a login.
 * It picks up what is open in the database when it starts (the demo's floor) and stops with the server.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { BREAK_TYPES, CALL_OUTCOMES } from './demo-names.ts';
import { createRng, type Rng } from './prng.ts';

const SEC = 1000;

type Agent = {
  id: number;
  center: number;
  state: 'out' | 'waiting' | 'call' | 'break';
  session: number | null;
  /** The open call or break. */
  open: { id: number; since: number; status?: number } | null;
  next: number;
};

export interface DemoLiveOptions {
  /** How often due agents act (default 500 ms). */
  tickMs?: number;
  /** At most this many requests per tick (default 20). */
  maxActionsPerTick?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface DemoLive {
  /** Stops the dialer and waits for its requests in flight. */
  stop(): Promise<void>;
  /** Requests answered with a 2xx so far. */
  readonly posted: number;
}

/** The dialer's HTTP client: JSON in, JSON out, with its own key. */
function client(baseUrl: string, key: string) {
  return async (method: string, path: string, body: unknown): Promise<{ value?: number[] }> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : {};
  };
}

/** The floor as the database holds it: unlocked interviewers, their open session, call or break. */
async function loadAgents(ctx: AppContext, rng: Rng, now: number): Promise<Agent[]> {
  const rows = await ctx.store.all<{ id: number; center: number; session: number | null; call: number | null; callTime: number | null; brk: number | null; breakTime: number | null }>(
    `SELECT i.id, i.call_center_id AS center, s.id AS session,
        (SELECT c.id FROM calls c WHERE c.interviewer_id = i.id AND c.duration IS NULL AND c.time >= s.login_time ORDER BY c.time DESC LIMIT 1) AS call,
        (SELECT c.time FROM calls c WHERE c.interviewer_id = i.id AND c.duration IS NULL AND c.time >= s.login_time ORDER BY c.time DESC LIMIT 1) AS "callTime",
        (SELECT b.id FROM breaks b WHERE b.interviewer_id = i.id AND b.duration IS NULL AND b.time >= s.login_time ORDER BY b.time DESC LIMIT 1) AS brk,
        (SELECT b.time FROM breaks b WHERE b.interviewer_id = i.id AND b.duration IS NULL AND b.time >= s.login_time ORDER BY b.time DESC LIMIT 1) AS "breakTime"
      FROM interviewers i LEFT JOIN sessions s ON s.interviewer_id = i.id AND s.logout_time IS NULL
      WHERE i.is_locked = 0 ORDER BY i.id`,
  );
  return rows.map((r) => {
    const a: Agent = { id: r.id, center: r.center, state: 'out', session: r.session, open: null, next: now + rng.int(5, 240) * SEC };
    if (r.session === null) return a;
    if (r.brk !== null) Object.assign(a, { state: 'break', open: { id: r.brk, since: r.breakTime! }, next: now + rng.int(20, 300) * SEC });
    else if (r.call !== null) Object.assign(a, { state: 'call', open: { id: r.call, since: r.callTime!, status: 1 }, next: now + rng.int(3, 120) * SEC });
    else Object.assign(a, { state: 'waiting', next: now + rng.int(1, 30) * SEC });
    return a;
  });
}

/** Starts the simulated dialer against the server at `baseUrl` (its own loopback URL). */
export async function startDemoLive(ctx: AppContext, baseUrl: string, options: DemoLiveOptions = {}): Promise<DemoLive> {
  const rng = createRng(options.seed ?? Date.now() % 2147483647);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const key = `demo_${randomBytes(24).toString('base64url')}`;
  ctx.keys.addMemoryKey(key, 'demo dialer', ['cati_integrate']);
  const send = client(baseUrl, key);
  const surveys = await ctx.store.all<{ id: string; size: number }>(
    `SELECT id, ${ctx.store.dialect.greatest('sample_size', '1')} AS size FROM surveys WHERE state = 'Open' ORDER BY id`,
  );
  const agents = await loadAgents(ctx, rng, Date.now());
  const agentOutcomes = CALL_OUTCOMES.filter((o) => ![2, 3, 10].includes(o[0])).map((o) => [o, o[1]] as const);
  const breakTypes = BREAK_TYPES.map((b) => [b, b[5]] as const);
  const iso = (ms: number) => new Date(ms).toISOString();
  let posted = 0;
  let lastError = 0;

  /** One step of an agent's day; returns when its request is answered. */
  async function act(a: Agent, now: number): Promise<void> {
    switch (a.state) {
      case 'out': {
        const r = await send('POST', '/cati/interviewersessionhistory', { InterviewerId: a.id, CallCenterId: a.center, LoginTime: iso(now) });
        Object.assign(a, { state: 'waiting', session: r.value![0], next: now + rng.int(3, 20) * SEC });
        return;
      }
      case 'waiting': {
        const roll = rng.next();
        if (roll < 0.03) {
          const [type, name, paid, minSec, maxSec] = rng.weighted(breakTypes);
          const r = await send('POST', '/cati/breakhistory', { Time: iso(now), InterviewerId: a.id, CallCenterId: a.center, BreakTypeId: type, BreakTypeName: name, IsPaid: paid, Duration: null });
          // Breaks run shorter than in life (a fifth), so a watcher sees them end; a few overrun their limit.
          Object.assign(a, { state: 'break', open: { id: r.value![0], since: now }, next: now + Math.round(rng.int(minSec, maxSec) / 5) * SEC });
        } else if (roll < 0.04) {
          await send('PATCH', `/cati/interviewersessionhistory(${a.session})`, { LogoutTime: iso(now) });
          Object.assign(a, { state: 'out', session: null, next: now + rng.int(60, 600) * SEC });
        } else if (surveys.length) {
          const s = rng.pick(surveys);
          const [status, , minSec, maxSec] = rng.weighted(agentOutcomes);
          const r = await send('POST', '/cati/callhistory', {
            Time: iso(now), SurveyId: s.id, InterviewId: rng.int(1, s.size), InterviewerId: a.id, CallCenterId: a.center,
            TelephoneNumber: `316${String(rng.int(0, 99_999_999)).padStart(8, '0')}`, Duration: null, WaitingTime: rng.int(2, 40),
          });
          Object.assign(a, { state: 'call', open: { id: r.value![0], since: now, status }, next: now + Math.max(5, rng.int(minSec, maxSec)) * SEC });
        }
        return;
      }
      case 'call':
        await send('PATCH', `/cati/callhistory(${a.open!.id})`, { Duration: Math.round((now - a.open!.since) / SEC), ExtendedStatus: a.open!.status ?? 1 });
        Object.assign(a, { state: 'waiting', open: null, next: now + rng.int(3, 40) * SEC });
        return;
      case 'break':
        await send('PATCH', `/cati/breakhistory(${a.open!.id})`, { Duration: Math.round((now - a.open!.since) / SEC) });
        Object.assign(a, { state: 'waiting', open: null, next: now + rng.int(5, 30) * SEC });
    }
  }

  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const tick = () => {
    if (busy || stopped) return;
    busy = true;
    running = (async () => {
      const now = Date.now();
      const due = agents.filter((a) => a.next <= now).slice(0, options.maxActionsPerTick ?? 20);
      for (const a of due) {
        if (stopped) break;
        try {
          await act(a, Date.now());
          posted++;
        } catch (err) {
          a.next = Date.now() + 30 * SEC; // try again later; never a tight loop
          if (Date.now() - lastError > 60_000) log(`demo-live: ${(err as Error).message}`);
          lastError = Date.now();
        }
      }
    })().finally(() => {
      busy = false;
    });
  };
  const timer = setInterval(tick, options.tickMs ?? 500);
  timer.unref();
  log(`demo-live: a simulated dialer drives ${agents.length} interviewers (${agents.filter((a) => a.state !== 'out').length} logged in)`);
  return {
    get posted() {
      return posted;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
