/**
 * The one publisher of /events (docs/events.md). Every write path calls `publishChanges(tx, [...])` (or
 * `publishChange`) inside the transaction that makes the change, with each record in its wire form as captured
 * when it changed: the store's change feed (db/change-feed.ts) delivers the batch to every server's streams once
 * that transaction commits, and never if it rolls back. Without a server (CLI, unit tests on a bare database)
 * nothing is delivered.
 */
import type { Queryable, Store } from '../db/store.ts';
import { selectList, type Row } from '../odata/collection-query.ts';
import { formatEntity } from '../odata/format.ts';
import type { EntityModel } from '../odata/model.ts';

/** The `event:` names of the stream. */
export type EventType = 'session' | 'break' | 'call' | 'interviewer' | 'blacklist' | 'assignment';

/** `opened`/`created`/`closed` for history, `created`/`updated`/`deleted`, `locked`/`unlocked` for interviewers. */
export type EventAction = 'opened' | 'closed' | 'created' | 'updated' | 'deleted' | 'locked' | 'unlocked';

/** One committed change: the event's data is `{action, id, ...record}`. */
export interface Change {
  type: EventType;
  action: EventAction;
  /** The entity's key (a composite string for assignments). */
  id: number | string;
  /** The record as the API returns it (`wireRecord`); absent for deletions. */
  record?: Record<string, unknown>;
}

/**
 * An event as a sink takes it: a change as its writer published it, or (read back from PostgreSQL's outbox as an
 * older server wrote it) its `data` already made. Either way the stream's `data:` is `{action, id, ...record}`.
 */
export type HubEvent = Change | { type: EventType; data: Record<string, unknown> };

/**
 * Events in order: an array, or a list that makes each one when asked (`at`). A bulk write publishes thousands of
 * changes; kept as a few arrays of values, they are made into objects only if a stream sends them (see EventHub).
 */
export type EventList<E = HubEvent> = readonly E[] | { readonly length: number; at(index: number): E | undefined };

/**
 * A list of `length` changes, each made by `make(index)` only when asked: what a bulk write publishes (its own
 * arrays stay the only copy the hub keeps for replay; 10,000 kept change objects per batch were the garbage
 * collector's work).
 */
export function changeList(length: number, make: (index: number) => Change): EventList<Change> {
  return { length, at: (index) => (index >= 0 && index < length ? make(index) : undefined) };
}

/** The `data:` of an event. */
export const eventData = (e: HubEvent): Record<string, unknown> => ('data' in e ? e.data : { action: e.action, id: e.id, ...e.record });

/** A row (property name → SQL value) in the wire form GET returns, without `@odata.context`. */
export function wireRecord(model: EntityModel, row: Row): Record<string, unknown> {
  return formatEntity(model, row);
}

/** The entity of `key` in wire form as GET returns it (undefined when absent). */
export async function entityRecord(q: Queryable, model: EntityModel, key: unknown): Promise<Record<string, unknown> | undefined> {
  const keyColumn = model.properties.find((p) => p.name === model.key[0])!.column!;
  const row = await q.get<Row>(`SELECT ${selectList(model)} FROM ${model.from} WHERE (${keyColumn}) = ?`, [key]);
  return row && wireRecord(model, row);
}

/**
 * Publishes changes, in order, with the transaction `tx` that makes them: every /events subscriber gets them once it
 * commits, and none if it rolls back (docs/events.md#exactly-once). The list is kept as given (the hub makes each
 * event's data only to send it). Outside a transaction the Store refuses it: a change and its event commit together.
 */
export async function publishChanges(tx: Queryable, changes: EventList<Change>): Promise<void> {
  if (changes.length === 0) return;
  await tx.publish(changes);
}

/**
 * Lets the change feed make what publishing `changes` will write (the outbox text on PostgreSQL) while the caller
 * waits on the database. Publish the same list in the same transaction; a list never published is forgotten.
 */
export function preparePublish(store: Store, changes: EventList<Change>): void {
  store.changeFeed?.prepare(changes);
}

/** Publishes one change with its transaction (see publishChanges). */
export function publishChange(tx: Queryable, change: Change): Promise<void> {
  return publishChanges(tx, [change]);
}
