/**
 * The change feed of a Store (docs/events.md, docs/architecture.md): a write path hands its batch of events to the
 * transaction that makes the change (`tx.publish(batch)`), and the feed delivers it to every subscriber once that
 * transaction commits, never when it rolls back. The data layer knows nothing of the events themselves: a batch is
 * opaque here, made into text and back by the subscriber's codec where it must travel through the database.
 *
 * SQLite (one process): the batches wait in memory with their transaction and are delivered right after COMMIT.
 * PostgreSQL (several servers, db/pg-change-feed.ts): each batch is an outbox row written, and NOTIFYed, by the
 * change's own transaction; every server's listener delivers it, and catches up after any reconnection.
 */

/** A batch of events as the feed carries it: opaque to the data layer (events/publisher.ts makes them). */
export interface FeedBatch {
  readonly length: number;
}

/** How a batch becomes text to store (PostgreSQL's outbox) and back. */
export interface FeedCodec {
  encode(batch: FeedBatch): string;
  decode(text: string): FeedBatch;
}

/** What a server subscribes with. */
export interface ChangeFeedOptions {
  codec: FeedCodec;
  /** Takes each committed batch, in commit order, once (the server's EventHub). */
  deliver(batch: FeedBatch): void;
  /** Called when the feed cannot know whether it missed batches (a listener away longer than the catch-up window). */
  reset(): void;
  /** PostgreSQL: how long outbox rows are kept, the catch-up window (default 5 minutes). */
  keepMs?: number;
  /** PostgreSQL: how often old rows are deleted (default 1 minute). */
  cleanupEveryMs?: number;
  /** PostgreSQL: how long a commit waits for this server's own listener to deliver its batches (default 5 s). */
  deliveryTimeoutMs?: number;
}

/** Revocations of API keys made through any connection (auth/api-keys.ts KeyChangeSignal). */
export interface KeyChanges {
  /** Moves on every announced revocation and every reconnection of the listener; undefined while it cannot hear. */
  readonly keyVersion: number | undefined;
  /** Resolves once every server's listener has heard of a revocation just committed, or after `timeoutMs`. */
  revocationHeard(timeoutMs: number): Promise<void>;
}

/** An open subscription to a store's changes. */
export interface ChangeFeed {
  /** True while batches of other servers can reach this one (always on SQLite). */
  readonly listening: boolean;
  /** Connections its listener made so far (1 + reconnections; 1 on SQLite). */
  readonly connections: number;
  /** Revocations announced across servers (PostgreSQL); undefined where one process holds the database. */
  readonly keyChanges: KeyChanges | undefined;
  /** Makes ahead what publishing `batch` will write (the outbox text), while the caller waits on the database. */
  prepare(batch: FeedBatch): void;
  /** Stops delivering. */
  close(): Promise<void>;
}

/**
 * The batches one transaction published, in order: a savepoint that rolls back drops those published inside it.
 * The engines keep one per open transaction.
 */
export class PendingBatches<T = FeedBatch> {
  readonly items: T[] = [];

  /** Where a savepoint starts. */
  mark(): number {
    return this.items.length;
  }

  /** Drops what was published after `mark` (a savepoint rolled back); returns it. */
  dropAfter(mark: number): T[] {
    return this.items.splice(mark);
  }
}

/**
 * SQLite's feed: one process holds the database, so a committed transaction's batches go straight to the
 * subscriber, in commit order (COMMIT and the delivery run in one synchronous step).
 */
export class LocalChangeFeed implements ChangeFeed {
  readonly listening = true;
  readonly connections = 1;
  readonly keyChanges = undefined;
  private closed = false;

  constructor(private readonly options: Pick<ChangeFeedOptions, 'deliver'>) {}

  prepare(): void {}

  /** Delivers a committed transaction's batches; a subscriber that throws loses none of the others. */
  committed(batches: readonly FeedBatch[]): void {
    if (this.closed) return;
    for (const batch of batches) {
      try {
        this.options.deliver(batch);
      } catch (err) {
        console.warn(`A committed batch of events could not be delivered: ${(err as Error).message}`);
      }
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
