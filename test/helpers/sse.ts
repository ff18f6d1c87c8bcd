/**
 * A Server-Sent Events reader for tests: fetch streaming, parsed into events; waits are bounded polls.
 */

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Events received so far, in order. */
  events: SseEvent[];
  /** Comment lines received so far (without the leading colon). */
  comments: string[];
  /** The first event after position `from` matching `pred`, waiting at most `timeoutMs`. */
  waitFor(pred: (e: SseEvent) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<SseEvent>;
  /** Waits until `cond()` holds, at most `timeoutMs`. */
  until(cond: () => boolean, timeoutMs?: number): Promise<void>;
  /** Ends the stream (the client goes away). */
  close(): void;
}

/** Polls `cond` every 10 ms until it holds; throws after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Opens GET /events with a key (null: none) and extra headers; resolves once the headers arrived. */
export async function openEvents(baseUrl: string, key: string | null, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const h: Record<string, string> = { ...headers };
  if (key !== null) h.authorization = `Bearer ${key}`;
  const res = await fetch(`${baseUrl}/events`, { headers: h, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  const parseBlock = (block: string) => {
    const e: SseEvent = { event: 'message', data: '' };
    const data: string[] = [];
    let any = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const [field, value] = [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)];
      if (field === 'id') e.id = value;
      else if (field === 'event') e.event = value;
      else if (field === 'data') data.push(value);
      else continue;
      any = true;
    }
    if (any) events.push({ ...e, data: data.join('\n') });
  };
  if (res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        buffer += decoder.decode(r.value, { stream: true });
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop()!;
        for (const block of blocks) parseBlock(block);
      }
    })().catch(() => {});
  }
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    async waitFor(pred, options = {}) {
      let found: SseEvent | undefined;
      await until(() => (found = events.slice(options.from ?? 0).find(pred)) !== undefined, options.timeoutMs ?? 5000, 'an event');
      return found!;
    },
    until: (cond, timeoutMs) => until(cond, timeoutMs),
    close: () => controller.abort(),
  };
}

/** The JSON data of an event. */
export const dataOf = (e: SseEvent) => JSON.parse(e.data) as Record<string, unknown> & { action: string; id: unknown };
