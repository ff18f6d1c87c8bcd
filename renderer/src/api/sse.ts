/**
 * A small Server-Sent Events parser (the `text/event-stream` format): text goes in by chunks, events come out.
 * The renderer reads `GET /events` with fetch (EventSource cannot send the Bearer key) and feeds it here.
 */

/** One dispatched event: its `event:` name (default `message`), `data:` lines joined by `\n`, and the last `id:`. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/** A parser that keeps the unfinished tail of the stream between chunks; `push` answers the events completed by a chunk. */
export function createSseParser(): { push(chunk: string): SseMessage[] } {
  let buffer = '';
  let lastId: string | null = null;
  let event = '';
  let data: string[] = [];
  let hasData = false;

  function line(text: string, out: SseMessage[]) {
    if (text === '') {
      if (hasData) out.push({ event: event || 'message', data: data.join('\n'), id: lastId });
      event = '';
      data = [];
      hasData = false;
      return;
    }
    if (text.startsWith(':')) return; // a comment (`: keep-alive`)
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      hasData = true;
    } else if (field === 'id' && !value.includes('\0')) lastId = value;
  }

  return {
    push(chunk) {
      let text = buffer + chunk;
      // A trailing `\r` may be the first half of `\r\n`: hold it (with its unfinished line) for the next chunk.
      const heldCr = text.endsWith('\r');
      if (heldCr) text = text.slice(0, -1);
      const lines = text.split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? '') + (heldCr ? '\r' : '');
      const out: SseMessage[] = [];
      for (const l of lines) line(l, out);
      return out;
    },
  };
}
