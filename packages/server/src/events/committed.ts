import { EventEmitter, on } from 'node:events';
import type { Db, Queryable, Unlisten } from '../db/connect.js';
import type { EventName } from './catalog.js';
import type { RecordedEvent } from './outbox.js';

/** Every API process LISTENs here; a NOTIFY sent inside a transaction is delivered when it commits. */
export const committedEventsChannel = 'vigil_events_committed';

/** NOTIFY payloads are limited to 8000 bytes; a larger event travels by id and is read back. */
const maxInlinePayloadBytes = 7900;

type Announcement = Omit<RecordedEvent, 'data'> & { data?: unknown };

/** Called by recordEvent in the event's own transaction, so only committed events are announced. */
export async function announceOnCommit(tx: Queryable, event: RecordedEvent): Promise<void> {
  const full = JSON.stringify(event);
  const { data: _data, ...withoutData } = event;
  const payload = Buffer.byteLength(full) <= maxInlinePayloadBytes ? full : JSON.stringify(withoutData);
  await tx.query('SELECT pg_notify($1, $2)', [committedEventsChannel, payload]);
}

const topic = (orgId: string, event: EventName) => `${orgId} ${event}`;

/**
 * The committed events of every process, as this process hears them through PostgreSQL
 * LISTEN/NOTIFY (or PGlite's, embedded), handed to whoever subscribed to an organization's event.
 * Events are delivered in the order they were announced.
 */
export class CommittedEvents {
  private readonly emitter = new EventEmitter();
  private tail: Promise<void> = Promise.resolve();
  private unlisten: Unlisten | undefined;

  private constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
  ) {
    this.emitter.setMaxListeners(0);
  }

  static async listen(db: Db, onError: (error: unknown) => void): Promise<CommittedEvents> {
    const events = new CommittedEvents(db, onError);
    events.unlisten = await db.listen(committedEventsChannel, (payload) => {
      events.tail = events.tail.then(() => events.deliver(payload)).catch(onError);
    });
    return events;
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

  private async deliver(payload: string): Promise<void> {
    const announced = JSON.parse(payload) as Announcement;
    const name = topic(announced.orgId, announced.event);
    if (this.emitter.listenerCount(name) === 0) return;
    const data = 'data' in announced ? announced.data : await this.readData(announced.id);
    if (data !== undefined) this.emitter.emit(name, { ...announced, data });
  }

  private async readData(id: string): Promise<unknown> {
    const [row] = await this.db.query<{ data: unknown }>('SELECT data FROM events WHERE id = $1', [id]);
    if (!row) this.onError(new Error(`committed event ${id} is not in the events table`));
    return row?.data;
  }

  async close(): Promise<void> {
    // A database already closed has dropped the LISTEN with its session.
    await this.unlisten?.().catch(() => undefined);
    this.emitter.removeAllListeners();
  }
}
