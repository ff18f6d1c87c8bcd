/**
 * The text of a batch of events where it travels through the database (PostgreSQL's outbox, db/pg-change-feed.ts):
 * the change feed's codec (docs/events.md#several-servers). A batch is a JSON array of runs: consecutive events of
 * one type whose data have the same keys in the same order, each run's data as rows of values.
 */
import type { FeedBatch, FeedCodec } from '../db/change-feed.ts';
import { eventData, type Change, type EventList, type EventType, type HubEvent } from './publisher.ts';

type Batch = EventList;

/**
 * A run of events in the outbox: consecutive events of one type whose data have the same keys in the same
 * order, the data as rows of values. An ingest of 10,000 calls is one run of 1 MB, where 10,000 objects each
 * naming their keys were 3 MB: the text made, sent and stored per batch was 60-100 ms of a 400 ms ingest
 * (JSON.stringify, Buffer.byteLength in pg's bind, the INSERT; node --cpu-prof and a /tmp INSERT timing).
 */
interface OutboxRun {
  type: EventType;
  keys: string[];
  rows: unknown[][];
}

/** The data's values when its own keys are exactly `keys`, in that order; else undefined. */
function valuesIn(data: Record<string, unknown>, keys: readonly string[]): unknown[] | undefined {
  const values = new Array<unknown>(keys.length);
  let i = 0;
  for (const key in data) {
    if (keys[i] !== key) return undefined;
    values[i++] = data[key];
  }
  return i === keys.length ? values : undefined;
}

/**
 * A change's data values ({action, id, ...record}) when its keys are exactly `keys`, read from the change without
 * making the data object; undefined when they differ or the record has keys of its own named action or id.
 */
function changeValuesIn(e: Change, record: Record<string, unknown>, keys: readonly string[]): unknown[] | undefined {
  if (keys[0] !== 'action' || keys[1] !== 'id') return undefined;
  const values = new Array<unknown>(keys.length);
  values[0] = e.action;
  values[1] = e.id;
  let i = 2;
  for (const key in record) {
    if (keys[i] !== key || key === 'action' || key === 'id') return undefined;
    values[i++] = record[key];
  }
  return i === keys.length ? values : undefined;
}

/** The outbox's text of a batch: a JSON array of runs (OutboxRun). */
export function outboxText(events: Batch): string {
  const runs: OutboxRun[] = [];
  let run: OutboxRun | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events.at(i)!;
    if (run && run.type === e.type) {
      const values = (!('data' in e) && e.record && changeValuesIn(e, e.record, run.keys)) || valuesIn(eventData(e), run.keys);
      if (values) {
        run.rows.push(values);
        continue;
      }
    }
    const data = eventData(e);
    runs.push((run = { type: e.type, keys: Object.keys(data), rows: [Object.values(data)] }));
  }
  return JSON.stringify(runs);
}

/** The events of an outbox row: runs (outboxText), or the `{type, data}` objects of a row an older server wrote. */
export function outboxEvents(text: string): HubEvent[] {
  const events: HubEvent[] = [];
  for (const item of JSON.parse(text) as (OutboxRun | { type: EventType; data: Record<string, unknown> })[]) {
    if (!('keys' in item)) {
      events.push(item);
      continue;
    }
    for (const values of item.rows) {
      const data: Record<string, unknown> = {};
      for (let k = 0; k < item.keys.length; k++) {
        const key = item.keys[k]!;
        if (key === '__proto__') Object.defineProperty(data, key, { value: values[k], enumerable: true, writable: true, configurable: true });
        else data[key] = values[k];
      }
      events.push({ type: item.type, data });
    }
  }
  return events;
}

/** The change feed's codec of /events batches. */
export const eventCodec: FeedCodec = {
  encode: (batch: FeedBatch) => outboxText(batch as Batch),
  decode: (text: string) => outboxEvents(text),
};
