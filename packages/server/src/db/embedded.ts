import pg from 'pg';
import type { Db, Unlisten } from './connect.js';
import { EmbeddedSocket, type SessionHost } from './embedded-socket.js';
import { EmbeddedThread, pgliteModules, StatementStopped, type TaskWithoutId } from './embedded-thread.js';
import type { ListenOptions } from './listener.js';
import { PooledDb, pgTypes } from './pooled.js';
import { DatabaseUnavailable } from './unavailable.js';

const ignore = () => undefined;

interface Subscriber {
  onNotify: (payload: string) => void;
  options: ListenOptions | undefined;
}

/**
 * The embedded database, PGlite, in a worker thread of its own (embedded-thread.ts): its
 * statements never hold the event loop, and one running past its limit is stopped by ending the
 * thread, after which the database is reopened from its files (PostgreSQL's crash recovery).
 * Connections reach the thread through pg, as PostgreSQL's would (embedded-socket.ts). They are
 * sessions of this core, not of a thread: those that had nothing running when a thread was
 * stopped go on with the next one, and what they send meanwhile waits for it.
 */
class EmbeddedCore implements SessionHost {
  greeting: Buffer = Buffer.alloc(0);
  private opening: Promise<EmbeddedThread>;
  /** The thread being opened or serving. */
  private thread: EmbeddedThread | undefined;
  /** The thread once it serves; undefined while one opens. */
  private serving: EmbeddedThread | undefined;
  private readonly sockets = new Map<number, EmbeddedSocket>();
  private nextSession = 1;
  /** Messages sent while a thread opens, in order. */
  private backlog: [session: number, bytes: Uint8Array][] = [];
  /** Why no thread will serve again (an in-memory database lost with its thread, or closed). */
  private gone: Error | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private closing: Promise<void> | undefined;

  constructor(
    /** PGlite's files; undefined keeps the database in memory (tests), which a stopped statement loses. */
    private readonly directory: string | undefined,
    private readonly statementTimeoutMs: number,
    /** In memory only: what the database starts as (EmbeddedDb.image), rather than an empty cluster. */
    private readonly image: Uint8Array<ArrayBuffer> | undefined,
  ) {
    this.opening = this.open();
  }

  get ready(): Promise<unknown> {
    return this.opening;
  }

  /** A socket for pg. */
  socket(): EmbeddedSocket {
    return new EmbeddedSocket(this);
  }

  attach(socket: EmbeddedSocket): number {
    const session = this.nextSession++;
    if (this.gone) {
      const gone = this.gone;
      process.nextTick(() => socket.fail(gone));
    } else this.sockets.set(session, socket);
    return session;
  }

  write(session: number, bytes: Uint8Array): void {
    if (this.serving) this.serving.write(session, bytes);
    else if (this.sockets.has(session)) this.backlog.push([session, new Uint8Array(bytes)]);
  }

  detach(session: number): void {
    if (!this.sockets.delete(session)) return;
    this.serving?.detach(session);
  }

  async task(task: TaskWithoutId): Promise<unknown> {
    // Used after close() is a fault of the caller's, as a pool used after end() is, not an outage.
    if (this.closing) throw new Error('The embedded database is closed.');
    return (await this.opening).task(task);
  }

  async listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    const subscriber = { onNotify, options };
    let subscribers = this.channels.get(channel);
    if (!subscribers) {
      subscribers = new Set();
      this.channels.set(channel, subscribers);
      await this.task({ op: 'listen', channel }).catch((error: unknown) => {
        this.channels.delete(channel);
        throw error;
      });
    }
    subscribers.add(subscriber);
    return async () => {
      subscribers.delete(subscriber);
      if (subscribers.size > 0 || this.channels.get(channel) !== subscribers) return;
      this.channels.delete(channel);
      if (!this.closing) await this.task({ op: 'unlisten', channel }).catch(ignore);
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const thread = await this.opening.catch(ignore);
      this.endSessions(new DatabaseUnavailable(new Error('the embedded database is closed')));
      if (!thread) return;
      await thread.task({ op: 'close' }).catch(ignore);
      await thread.stop(new DatabaseUnavailable(new Error('the embedded database is closed'))).ended;
    })();
    return this.closing;
  }

  private async open(): Promise<EmbeddedThread> {
    const modules = await pgliteModules();
    const thread = new EmbeddedThread({ directory: this.directory, image: this.image, modules, statementTimeoutMs: this.statementTimeoutMs }, {
      onAnswer: (session, bytes) => this.sockets.get(session)?.receive(bytes),
      onNotify: (channel, payload) => {
        for (const subscriber of this.channels.get(channel) ?? []) subscriber.onNotify(payload);
      },
      onOverrun: (limitMs) => this.replace(thread, new StatementStopped(limitMs)),
      onLost: (error) => this.replace(thread, error),
    });
    this.thread = thread;
    this.greeting = await thread.ready;
    for (const channel of this.channels.keys()) await thread.task({ op: 'listen', channel });
    this.serving = thread;
    const backlog = this.backlog;
    this.backlog = [];
    for (const [session, bytes] of backlog) if (this.sockets.has(session)) thread.write(session, bytes);
    return thread;
  }

  /**
   * Stops `thread` (the sessions that had a statement on it or a transaction open answer 503) and
   * opens the database again from its files once the thread has ended, so that two never hold
   * them.
   */
  private replace(thread: EmbeddedThread, reason: DatabaseUnavailable): void {
    if (this.thread !== thread || this.closing) return;
    this.serving = undefined;
    const others = new DatabaseUnavailable(new Error('the embedded database is being reopened after a stopped statement'));
    const { lost, ended } = thread.stop(reason instanceof StatementStopped ? others : reason, reason);
    for (const [session, error] of lost) this.sockets.get(session)?.fail(error);
    if (!this.directory) {
      const gone = new DatabaseUnavailable(new Error('the in-memory embedded database was lost with its stopped thread'));
      this.endSessions(gone);
      this.opening = Promise.reject(gone);
      this.opening.catch(ignore);
      return;
    }
    this.opening = ended.then(() => this.open());
    this.opening.then(() => this.resubscribed(), (error: unknown) => this.endSessions(error instanceof Error ? error : new DatabaseUnavailable(error)));
  }

  /** No thread will serve again: every session fails, and every new one. */
  private endSessions(error: Error): void {
    this.gone = error;
    this.serving = undefined;
    this.backlog = [];
    for (const socket of [...this.sockets.values()]) socket.fail(error);
    this.sockets.clear();
  }

  private resubscribed(): void {
    for (const subscribers of this.channels.values()) for (const { options } of subscribers) options?.onResubscribed?.();
  }
}

export interface EmbeddedOptions {
  statementTimeoutMs: number;
  poolSize: number;
  /** Waiting for a free connection of the pool, or for the database to open. */
  connectTimeoutMs: number;
  /** In memory only: start as this image of a database (EmbeddedDb.image) rather than as an empty cluster. */
  image?: Uint8Array<ArrayBuffer>;
}

export class EmbeddedDb extends PooledDb implements Db {
  readonly kind = 'pglite';

  private constructor(
    private readonly core: EmbeddedCore,
    private readonly options: EmbeddedOptions,
    poolSize: number,
    /** False for the handles separatePool() gives: the database stays open until its owner closes it. */
    private readonly owner: boolean,
  ) {
    super(
      new pg.Pool({
        stream: () => core.socket(),
        user: 'postgres',
        database: 'postgres',
        types: pgTypes,
        max: poolSize,
        connectionTimeoutMillis: options.connectTimeoutMs,
        allowExitOnIdle: true,
      }),
    );
  }

  static async open(directory: string | undefined, options: EmbeddedOptions): Promise<EmbeddedDb> {
    const core = new EmbeddedCore(directory, options.statementTimeoutMs, directory === undefined ? options.image : undefined);
    try {
      await core.ready;
    } catch (error) {
      await core.close();
      throw error;
    }
    return new EmbeddedDb(core, options, options.poolSize, true);
  }

  listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    return this.core.listen(channel, onNotify, options);
  }

  /**
   * A pool of its own on the same database: its connections never wait for this pool's. PGlite
   * has one session, so their statements still take turns with everyone's in the thread.
   */
  separatePool(size: number): Db {
    return new EmbeddedDb(this.core, this.options, size, false);
  }

  async copyRows(target: string, rows: string | Uint8Array, options: string): Promise<void> {
    await this.core.task({ op: 'copyFrom', sql: `COPY ${target} FROM '/dev/blob' ${options}`, rows });
  }

  async readRows(source: string): Promise<string> {
    return (await this.core.task({ op: 'copyTo', sql: `COPY ${source} TO '/dev/blob'` })) as string;
  }

  /**
   * The whole database as PGlite's data-directory tarball: an in-memory database opened with it
   * starts as a copy of this one, without initdb's seconds (tests start every database this way).
   */
  async image(): Promise<Uint8Array<ArrayBuffer>> {
    return (await this.core.task({ op: 'image' })) as Uint8Array<ArrayBuffer>;
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
    if (this.owner) await this.core.close();
  }
}
