import { EventEmitter, on } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Unlisten } from '../db/connect.js';
import type { EventName } from './catalog.js';
import type { RecordedEvent } from './outbox.js';
import { isoTimestamp } from '../db/timestamps.js';

/** Every API process LISTENs here; a NOTIFY sent inside a transaction is delivered when it commits. */
export const committedEventsChannel = 'vigil_events_committed';

/** NOTIFY payloads are limited to 8000 bytes; a larger event travels by id and is read back. */
const maxInlinePayloadBytes = 7900;

type Announcement = Omit<RecordedEvent, 'data'> & { data?: unknown };

/**
 * The NOTIFY payload that announces `event` to every API process (GraphQL subscriptions), sent by
 * recordEvent in the event's own transaction, so only committed events are announced.
 */
export function announcementOf(event: RecordedEvent): string {
  const full = JSON.stringify(event);
  const { data: _data, ...withoutData } = event;
  return Buffer.byteLength(full) <= maxInlinePayloadBytes ? full : JSON.stringify(withoutData);
}

const topic = (orgId: string, event: EventName) => `${orgId} ${event}`;

/**
 * How far back a read after a reconnect looks before the last event delivered: an event's time is
 * taken when it is recorded and it may commit (and be announced) later, by up to a transaction's
 * length; ids of that window are remembered so that nothing is delivered twice.
 */
const catchUpWindowMs = 30_000;
/** The most events one read after a reconnect hands on. */
const catchUpLimit = 10_000;
const catchUpRetryMs = 1_000;

export interface CommittedEventsOptions {
  onError: (error: unknown) => void;
  /** After the listener reconnected and read back the events committed meanwhile: how many it delivered. */
  onCaughtUp?: (delivered: number) => void;
}

type EventRow = { id: string; org_id: string; type: EventName; data: unknown; created_at: Date };

/**
 * The committed events of every process, as this process hears them through PostgreSQL
 * LISTEN/NOTIFY (or PGlite's, embedded), handed to whoever subscribed to an organization's event.
 * Events are delivered in the order they were announced. NOTIFYs sent while the listener was
 * reconnecting are lost, so the events table (the outbox) is read back for what was committed
 * meanwhile, and each event is delivered once.
 */
export class CommittedEvents {
  private readonly emitter = new EventEmitter();
  private tail: Promise<void> = Promise.resolve();
  private unlisten: Unlisten | undefined;
  /** Ids of the events delivered in the last catchUpWindowMs, and when each was recorded. */
  private readonly recent = new Map<string, number>();
  private lastRecordedAt = Date.now();
  private closed = false;

  private constructor(
    private readonly db: Db,
    private readonly options: CommittedEventsOptions,
  ) {
    this.emitter.setMaxListeners(0);
  }

  static async listen(db: Db, options: CommittedEventsOptions): Promise<CommittedEvents> {
    const events = new CommittedEvents(db, options);
    events.unlisten = await db.listen(committedEventsChannel, (payload) => events.enqueue(() => events.deliver(JSON.parse(payload) as Announcement)), {
      onResubscribed: () => events.enqueue(() => events.catchUp()),
    });
    return events;
  }

  /** Deliveries and catch-ups run one after the other, in the order they were heard. */
  private enqueue(work: () => Promise<void>): void {
    this.tail = this.tail.then(work).catch(this.options.onError);
  }

  /**
   * The organization's `event`s committed from now on that `accept` lets through, until the
   * iterator is returned (which ends a pending `next` at once).
   */
  subscribe(orgId: string, event: EventName, accept: (event: RecordedEvent) => boolean = () => true): AsyncIterableIterator<RecordedEvent> {
    const iterator = on(this.emitter, topic(orgId, event));
    return {
      async next() {
        for (;;) {
          const result = await iterator.next();
          if (result.done) return { done: true, value: undefined };
          const recorded = (result.value as [RecordedEvent])[0];
          if (accept(recorded)) return { done: false, value: recorded };
        }
      },
      async return() {
        await iterator.return?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  /** How many subscriptions wait for the organization's `event` in this process. */
  subscriberCount(orgId: string, event: EventName): number {
    return this.emitter.listenerCount(topic(orgId, event));
  }

  private async deliver(announced: Announcement): Promise<void> {
    if (this.recent.has(announced.id)) return;
    this.remember(announced.id, Date.parse(announced.timestamp));
    const name = topic(announced.orgId, announced.event);
    if (this.emitter.listenerCount(name) === 0) return;
    const data = 'data' in announced ? announced.data : await this.readData(announced.id);
    if (data !== undefined) this.emitter.emit(name, { ...announced, data });
  }

  private remember(id: string, recordedAt: number): void {
    this.recent.set(id, recordedAt);
    if (recordedAt > this.lastRecordedAt) this.lastRecordedAt = recordedAt;
    // Insertion order is nearly time order: forget from the oldest until one is inside the window.
    for (const [known, at] of this.recent) {
      if (at >= this.lastRecordedAt - 2 * catchUpWindowMs) break;
      this.recent.delete(known);
    }
  }

  /**
   * The events committed while the listener was away, oldest first, each not yet delivered. When
   * the database went again, the read is tried again, and what is heard meanwhile waits behind it:
   * those events were committed after the ones it reads back.
   */
  private async catchUp(): Promise<void> {
    let rows: EventRow[] | undefined;
    while (!rows) {
      try {
        rows = await this.db.query<EventRow>(
          'SELECT id, org_id, type, data, created_at FROM events WHERE created_at >= $1 ORDER BY created_at, id LIMIT $2',
          [new Date(this.lastRecordedAt - catchUpWindowMs), catchUpLimit],
        );
      } catch (error) {
        if (this.closed) return;
        this.options.onError(error);
        await sleep(catchUpRetryMs, undefined, { ref: false });
        if (this.closed) return;
      }
    }
    let delivered = 0;
    for (const row of rows) {
      if (this.recent.has(row.id)) continue;
      await this.deliver({ id: row.id, orgId: row.org_id, event: row.type, timestamp: isoTimestamp(row.created_at), data: row.data });
      delivered++;
    }
    this.options.onCaughtUp?.(delivered);
  }

  private async readData(id: string): Promise<unknown> {
    const [row] = await this.db.query<{ data: unknown }>('SELECT data FROM events WHERE id = $1', [id]);
    if (!row) this.options.onError(new Error(`committed event ${id} is not in the events table`));
    return row?.data;
  }

  async close(): Promise<void> {
    this.closed = true;
    // A database already closed has dropped the LISTEN with its session.
    await this.unlisten?.().catch(() => undefined);
    this.emitter.removeAllListeners();
  }
}
