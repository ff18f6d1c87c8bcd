/**
 * The one live connection to `GET /events` (docs/events.md#events): read with fetch (the Bearer key goes in a header, which
 * EventSource cannot send), parsed by api/sse.ts, resumed with `Last-Event-ID`, reconnected with backoff.
 * Screens subscribe to the events; `status` feeds the "live / reconnecting" indicator.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { ApiRequestError, describeError, send } from '../api/client.ts';
import { createSseParser, type SseMessage } from '../api/sse.ts';
import { t } from '../i18n/index.ts';
import { isUnreachable } from './resource-state.ts';

/** `connecting` before the first answer, `live` while the stream is open, `reconnecting` after it broke, `stopped` when refused for good. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** Each (re)connection is announced to subscribers as this event, so they reload what they show. */
export const OPEN_EVENT = 'open';
/** A connection opened after the stream was down (an outage, a restart): every screen shown reloads what it shows. */
export const RECONNECTED_EVENT = 'reconnected';
/** Nothing (not even the 15 s keep-alive comment) for this long: the connection is taken as dead. */
const SILENCE_MS = 40_000;
/** The longest wait between tries: a server back after an outage is found within it (screens reload within 15 s). */
const MAX_BACKOFF_MS = 8_000;

export const useLiveEventsStore = defineStore('live-events', () => {
  const status = ref<LiveStatus>('connecting');
  const problem = ref<string | null>(null);
  /** The problem is that the server cannot be reached at all (no HTTP answer). */
  const unreachable = ref(false);
  const listeners = new Set<(m: SseMessage) => void>();
  let lastEventId: string | null = null;
  let running = false;
  let failures = 0;
  let abort: AbortController | null = null;
  let lastHeard = 0;
  let wake: (() => void) | null = null;
  /** The stream was open before: any later opening follows a break (an outage, a restart), a return. */
  let openedBefore = false;

  const emit = (m: SseMessage) => listeners.forEach((l) => l(m));

  async function readOnce(): Promise<void> {
    abort = new AbortController();
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const res = await send('GET', '/events', { headers, signal: abort.signal });
    if (!res.body) throw new Error(t('api.noStreamBody'));
    status.value = 'live';
    problem.value = null;
    unreachable.value = false;
    failures = 0;
    lastHeard = Date.now();
    emit({ event: OPEN_EVENT, data: '{}', id: lastEventId });
    if (openedBefore) emit({ event: RECONNECTED_EVENT, data: '{}', id: lastEventId });
    openedBefore = true;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = createSseParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      lastHeard = Date.now();
      for (const m of parser.push(value)) {
        if (m.id !== null) lastEventId = m.id;
        emit(m);
      }
    }
  }

  /** Waits `ms`, or less when `stop`/`retryNow` wakes it. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  async function loop() {
    while (running) {
      try {
        await readOnce();
      } catch (err) {
        if (!running) return;
        if (err instanceof ApiRequestError && (err.status === 401 || err.status === 403)) {
          status.value = 'stopped';
          problem.value = describeError(err);
          unreachable.value = false;
          running = false;
          return;
        }
        problem.value = describeError(err);
        unreachable.value = isUnreachable(err);
      }
      if (!running) return;
      status.value = 'reconnecting';
      // 1 s, 2 s, 4 s … up to 8 s, with jitter so many screens do not return at once.
      await pause(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures++) * (0.5 + Math.random() / 2));
    }
  }

  let watchdog: ReturnType<typeof setInterval> | undefined;
  /** Opens the stream once (later calls do nothing while it runs). */
  function start() {
    if (running) return;
    running = true;
    status.value = lastEventId ? 'reconnecting' : 'connecting';
    watchdog = setInterval(() => {
      if (status.value === 'live' && Date.now() - lastHeard > SILENCE_MS) abort?.abort();
    }, 5000);
    void loop();
  }

  /** Closes the stream for good (until `start`). */
  function stop() {
    running = false;
    clearInterval(watchdog);
    abort?.abort();
    wake?.();
  }

  /** Tries to reconnect at once instead of at the end of the current wait. */
  function retryNow() {
    wake?.();
  }

  /** Calls `listener` with every event (and OPEN_EVENT on each connection); answers the unsubscribe function. */
  function subscribe(listener: (m: SseMessage) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  return { status, problem, unreachable, start, stop, retryNow, subscribe };
});
