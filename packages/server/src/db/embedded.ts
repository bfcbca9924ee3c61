import type { Db, Queryable, Unlisten } from './connect.js';
import { EmbeddedThread, type RequestWithoutId, StatementStopped } from './embedded-thread.js';
import type { ListenOptions } from './listener.js';
import { DatabaseUnavailable } from './unavailable.js';

const ignore = () => undefined;

/**
 * PostgreSQL's own way of shortening one transaction's limit (the project's SQL runs this way):
 * PGlite accepts it and ignores it, so the embedded database reads it and times the rest of the
 * transaction's statements with it.
 */
const localStatementTimeout = /^\s*SET\s+LOCAL\s+statement_timeout\s*(?:=|TO)\s*'?(\d+)'?\s*;?\s*$/i;

interface Subscriber {
  onNotify: (payload: string) => void;
  options: ListenOptions | undefined;
}

/**
 * The embedded database, PGlite, in a worker thread of its own (embedded-thread.ts): its
 * statements never hold the event loop, and one running past its limit is stopped by ending the
 * thread, after which the database is reopened from its files (PostgreSQL's crash recovery). PGlite
 * has one session, so requests go to it in the order they are made, and a transaction holds it
 * for its statements until it ends, as one connection would.
 */
class EmbeddedCore {
  private opening: Promise<EmbeddedThread>;
  private thread: EmbeddedThread | undefined;
  /** Requests wait here for their turn to be sent; a transaction keeps the turn until it ends. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly channels = new Map<string, Set<Subscriber>>();
  private closing: Promise<void> | undefined;

  constructor(
    /** PGlite's files; undefined keeps the database in memory (tests), which a stopped statement loses. */
    private readonly directory: string | undefined,
    readonly statementTimeoutMs: number,
  ) {
    this.opening = this.open();
  }

  get ready(): Promise<unknown> {
    return this.opening;
  }

  /** Sends `request` in its turn, without holding the turn for its answer (PGlite answers in order). */
  send(request: RequestWithoutId, limitMs = this.statementTimeoutMs): Promise<unknown> {
    const sent = this.tail.then(async () => ({ answer: (await this.current()).send(request, limitMs) }));
    this.tail = sent.catch(ignore);
    return sent.then(({ answer }) => answer);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      const thread = await this.current();
      let limitMs = this.statementTimeoutMs;
      const send = (request: RequestWithoutId) => thread.send(request, limitMs);
      const limitFrom = (sql: string) => {
        const local = localStatementTimeout.exec(sql);
        if (local) limitMs = Math.min(this.statementTimeoutMs, Number(local[1]) || this.statementTimeoutMs);
      };
      await send({ op: 'exec', sql: 'BEGIN' });
      try {
        const result = await work({
          query: async <Row>(sql: string, params: readonly unknown[] = []) => {
            limitFrom(sql);
            return (await send({ op: 'query', sql, params })) as Row[];
          },
          exec: async (sql: string) => {
            limitFrom(sql);
            await send({ op: 'exec', sql });
          },
        });
        limitMs = this.statementTimeoutMs;
        await send({ op: 'exec', sql: 'COMMIT' });
        return result;
      } catch (error) {
        // A stopped thread took its transaction with it; the reopened database never saw it.
        if (!thread.stopped) await send({ op: 'exec', sql: 'ROLLBACK' }).catch(ignore);
        throw error;
      }
    });
    this.tail = run.catch(ignore);
    return run;
  }

  async listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    const subscriber = { onNotify, options };
    let subscribers = this.channels.get(channel);
    if (!subscribers) {
      subscribers = new Set();
      this.channels.set(channel, subscribers);
      await this.send({ op: 'listen', channel }).catch((error: unknown) => {
        this.channels.delete(channel);
        throw error;
      });
    }
    subscribers.add(subscriber);
    return async () => {
      subscribers.delete(subscriber);
      if (subscribers.size > 0 || this.channels.get(channel) !== subscribers) return;
      this.channels.delete(channel);
      if (!this.closing) await this.send({ op: 'unlisten', channel }).catch(ignore);
    };
  }

  close(): Promise<void> {
    this.closing ??= this.tail.then(async () => {
      const thread = await this.opening.catch(ignore);
      if (!thread) return;
      await thread.send({ op: 'close' }, this.statementTimeoutMs).catch(ignore);
      await thread.stop(new DatabaseUnavailable(new Error('the embedded database is closed')));
    });
    return this.closing;
  }

  private async current(): Promise<EmbeddedThread> {
    if (this.closing) throw new DatabaseUnavailable(new Error('the embedded database is closed'));
    return this.opening;
  }

  private async open(): Promise<EmbeddedThread> {
    const thread = new EmbeddedThread(this.directory, {
      onNotify: (channel, payload) => {
        for (const subscriber of this.channels.get(channel) ?? []) subscriber.onNotify(payload);
      },
      onOverrun: (limitMs) => this.replace(thread, new StatementStopped(limitMs)),
      onLost: (error) => this.replace(thread, error),
    });
    this.thread = thread;
    await thread.ready;
    for (const channel of this.channels.keys()) await thread.send({ op: 'listen', channel }, this.statementTimeoutMs);
    return thread;
  }

  /**
   * Stops `thread` (the requests it holds answer 503) and opens the database again from its files
   * once the thread has ended, so that two never hold them. Requests made meanwhile wait for it.
   */
  private replace(thread: EmbeddedThread, reason: DatabaseUnavailable): void {
    if (this.thread !== thread || this.closing) return;
    const others = new DatabaseUnavailable(new Error('the embedded database is being reopened after a stopped statement'));
    const stopped = thread.stop(reason instanceof StatementStopped ? others : reason, reason);
    if (!this.directory) {
      this.opening = Promise.reject(new DatabaseUnavailable(new Error('the in-memory embedded database was lost with its stopped thread')));
      this.opening.catch(ignore);
      return;
    }
    this.opening = stopped.then(() => this.open());
    this.opening.then(() => this.resubscribed(), ignore);
  }

  private resubscribed(): void {
    for (const subscribers of this.channels.values()) for (const { options } of subscribers) options?.onResubscribed?.();
  }
}

export class EmbeddedDb implements Db {
  readonly kind = 'pglite';

  private constructor(
    private readonly core: EmbeddedCore,
    /** False for the handle separatePool() gives: the database stays open until its owner closes it. */
    private readonly owner: boolean,
  ) {}

  static async open(directory: string | undefined, statementTimeoutMs: number): Promise<EmbeddedDb> {
    const core = new EmbeddedCore(directory, statementTimeoutMs);
    try {
      await core.ready;
    } catch (error) {
      await core.close();
      throw error;
    }
    return new EmbeddedDb(core, true);
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return (await this.core.send({ op: 'query', sql, params })) as Row[];
  }

  async exec(sql: string): Promise<void> {
    await this.core.send({ op: 'exec', sql });
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.core.transaction(work);
  }

  listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    return this.core.listen(channel, onNotify, options);
  }

  separatePool(): Db {
    return new EmbeddedDb(this.core, false);
  }

  async copyRows(target: string, rows: string): Promise<void> {
    await this.core.send({ op: 'copyFrom', sql: `COPY ${target} FROM '/dev/blob'`, rows });
  }

  async readRows(source: string): Promise<string> {
    return (await this.core.send({ op: 'copyTo', sql: `COPY ${source} TO '/dev/blob'` })) as string;
  }

  async close(): Promise<void> {
    if (this.owner) await this.core.close();
  }
}
