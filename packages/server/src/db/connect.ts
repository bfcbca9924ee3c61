import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { EmbeddedDb } from './embedded.js';
import { type ListenOptions, PostgresListener } from './listener.js';
import type { NamedStatement } from './named-statement.js';
import { SilentServerWatchdog } from './silent-server-watchdog.js';
import { PooledDb, pgTypes } from './pooled.js';
import { guarded } from './unavailable.js';

export type { ListenOptions } from './listener.js';

/**
 * The one query interface every store uses. Plain parameterised SQL ($1, $2, …) runs unchanged on
 * PGlite and on PostgreSQL, so there is one dialect and no query builder to learn (docs/database.md).
 */
export interface Queryable {
  /** `sql` as a NamedStatement: kept prepared on PostgreSQL's connections (named-statement.ts). */
  query<Row = Record<string, unknown>>(sql: string | NamedStatement, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
}

export type Unlisten = () => Promise<void>;

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** PostgreSQL only: this process's pool — connections open, idle, and queries waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * Calls `onNotify` for every NOTIFY on `channel` until the returned function is called. On
   * PostgreSQL the session survives server restarts: it reconnects with back-off, re-subscribes
   * and then calls `options.onResubscribed` (NOTIFYs sent while it was away are lost).
   */
  listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten>;
  /**
   * The same database through a pool of its own of at most `size` connections (PostgreSQL), so
   * that work on it never takes this pool's connections. PGlite has one connection: it answers
   * with a handle on itself whose close() leaves the database open.
   */
  separatePool(size: number): Db;
  close(): Promise<void>;
}

class PostgresDb extends PooledDb implements Db {
  readonly kind = 'postgres';

  private readonly watchdog: SilentServerWatchdog;

  constructor(
    private readonly poolOptions: PostgresPoolOptions,
    private readonly listenerOptions: pg.ClientConfig,
  ) {
    const { silentServerLimitMs, ...pgOptions } = poolOptions;
    // Connections stay open once made (min = max) rather than closing after 10 s idle, pg's default:
    // after each lull the first requests waited for new PostgreSQL sessions, and at 1,000 req/s the
    // first quarter second of answers took 150–290 ms (BENCHMARKS.md, 2026-12-01 night).
    const pool = new pg.Pool({ ...pgOptions, min: pgOptions.max });
    const watchdog = new SilentServerWatchdog(pool, silentServerLimitMs);
    super(pool, { beforeStatement: (client) => watchdog.rearm(client), keepsNamedStatements: true });
    this.watchdog = watchdog;
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async listen(channel: string, onNotify: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    const listener = await guarded(() => PostgresListener.start(() => new pg.Client(this.listenerOptions), channel, onNotify, options));
    return () => listener.close();
  }

  separatePool(size: number): Db {
    return new PostgresDb({ ...this.poolOptions, max: size }, this.listenerOptions);
  }

  copyRows(target: string, rows: string | Uint8Array, options: string): Promise<void> {
    return this.onConnection((client) => guarded(() => pipeline(Readable.from([rows]), client.query(copyFrom(`COPY ${target} FROM STDIN ${options}`)))));
  }

  async close(): Promise<void> {
    this.watchdog.stop();
    if (!this.pool.ended) await this.pool.end();
  }
}

interface PostgresPoolOptions extends pg.PoolConfig {
  /** How long a statement may go unanswered before its connection is given up (SilentServerWatchdog). */
  silentServerLimitMs: number;
}

function clientOptions(options: ConnectOptions & { databaseUrl: string }): pg.ClientConfig {
  return {
    connectionString: options.databaseUrl,
    types: pgTypes,
    connectionTimeoutMillis: options.connectTimeoutMs ?? defaultTimeouts.connectMs,
    keepAlive: true,
    // A connection kept open through a lull is probed after a minute of silence: the probes keep a
    // NAT or load balancer between here and PostgreSQL from dropping it (some do after 4 minutes),
    // and close one dropped anyway once they go unanswered.
    keepAliveInitialDelayMillis: 60_000,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  };
}

/** Defaults of VIGIL_DB_CONNECT_TIMEOUT_MS and VIGIL_DB_STATEMENT_TIMEOUT_MS (docs/operations.md). */
const defaultTimeouts = { connectMs: 3_000, statementMs: 10_000 };
/** How much longer than statement_timeout the client waits before it gives up on a silent server. */
const clientGraceMs = 1_000;

/**
 * Bulk-loads rows into `target` (`"schema"."table" ("col", …)`, from code), written in COPY's text
 * format or as `options` (COPY's options from code, e.g. `(FORMAT csv)`) say: COPY FROM STDIN on
 * PostgreSQL, COPY FROM '/dev/blob' on PGlite.
 */
export function copyRows(db: Db, target: string, rows: string | Uint8Array, options = ''): Promise<void> {
  if (db instanceof EmbeddedDb || db instanceof PostgresDb) return db.copyRows(target, rows, options);
  throw new Error('This database handle cannot bulk-load rows.');
}

/**
 * What loading a table takes of a database: statements, and COPY into `target` (`"schema"."table"
 * (columns)`). A Db gives it with `loadingDb`; an ingest thread gives it by asking the main thread.
 */
export interface LoadingDb extends Queryable {
  /** Runs after every COPY sent before it has ended, and fails when one of them failed. */
  copyRows(target: string, rows: Uint8Array, options: string): Promise<void>;
}

/**
 * A loader may send its next batch before the last one is in (copy-batcher.ts): its COPYs run one
 * after the other, on one connection at a time, each as soon as the one before it ends; after one
 * fails, the ones sent after it fail with the same error.
 */
export function loadingDb(db: Db): LoadingDb {
  let copying: Promise<void> = Promise.resolve();
  return {
    query: (sql, params) => db.query(sql, params),
    exec: (sql) => db.exec(sql),
    copyRows: (target, rows, options) => (copying = copying.then(() => copyRows(db, target, rows, options))),
  };
}

/** An embedded database's rows of `source` (`"schema"."table" ("col", …)`, from code) in COPY text format. */
export function readEmbeddedRows(db: Db, source: string): Promise<string> {
  if (db instanceof EmbeddedDb) return db.readRows(source);
  throw new Error('Only an embedded database hands out its rows this way.');
}

/** Where PGlite keeps its files inside VIGIL_DATA_DIR. */
export function embeddedDirectory(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

export interface ConnectOptions {
  databaseUrl?: string;
  /** Directory for PGlite's files; omitted means in memory (tests). */
  dataDir?: string;
  /** In memory only: the database starts as this image (EmbeddedDb.image) rather than as an empty cluster. */
  image?: Uint8Array<ArrayBuffer>;
  /** PostgreSQL only: the schema every connection uses first (tests isolate themselves this way). */
  searchPath?: string;
  poolSize?: number;
  /** PostgreSQL only: opening a connection, or waiting for a free one in the pool. */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL: the server cancels a statement running longer (statement_timeout), and the client
   * gives up on one unanswered for a second more (a frozen server cancels nothing). Embedded: the
   * database's thread is stopped and the database reopened (embedded.ts).
   */
  statementTimeoutMs?: number;
}

export async function connectDb(options: ConnectOptions): Promise<Db> {
  if (options.databaseUrl) {
    const sessionOptions = clientOptions({ ...options, databaseUrl: options.databaseUrl });
    const statementMs = options.statementTimeoutMs ?? defaultTimeouts.statementMs;
    const poolOptions = {
      ...sessionOptions,
      statement_timeout: statementMs,
      silentServerLimitMs: statementMs + clientGraceMs,
      max: options.poolSize ?? 10,
    };
    const db = new PostgresDb(poolOptions, sessionOptions);
    await db.query('SELECT 1');
    return db;
  }
  const embedded = {
    statementTimeoutMs: options.statementTimeoutMs ?? defaultTimeouts.statementMs,
    poolSize: options.poolSize ?? 10,
    connectTimeoutMs: options.connectTimeoutMs ?? defaultTimeouts.connectMs,
    image: options.image,
  };
  if (options.dataDir) {
    const dir = embeddedDirectory(options.dataDir);
    await mkdir(dir, { recursive: true });
    return EmbeddedDb.open(dir, embedded);
  }
  return EmbeddedDb.open(undefined, embedded);
}
