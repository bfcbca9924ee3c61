import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * The one query interface every store uses. Plain parameterised SQL ($1, $2, …) runs unchanged on
 * PGlite and on PostgreSQL, so there is one dialect and no query builder to learn (docs/database.md).
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
}

export type Unlisten = () => Promise<void>;

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Calls `onNotify` for every NOTIFY on `channel` until the returned function is called. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>;
  close(): Promise<void>;
}

class PgliteDb implements Db {
  readonly kind = 'pglite';

  constructor(private readonly lite: PGlite) {}

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.lite.query<Row>(sql, params as unknown[]);
    return result.rows;
  }

  async exec(sql: string): Promise<void> {
    await this.lite.exec(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.lite.transaction((tx) =>
      work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          (await tx.query<Row>(sql, params as unknown[])).rows,
        exec: async (sql: string) => {
          await tx.exec(sql);
        },
      }),
    );
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten> {
    return this.lite.listen(channel, onNotify);
  }

  async copyRows(target: string, rows: string): Promise<void> {
    await this.lite.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob([rows]) });
  }

  async close(): Promise<void> {
    if (!this.lite.closed) await this.lite.close();
  }
}

const int8 = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

class PostgresDb implements Db {
  readonly kind = 'postgres';

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    private readonly searchPath: string | undefined,
  ) {}

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.pool.query(sql, params as unknown[]);
    return result.rows as Row[];
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          (await client.query(sql, params as unknown[])).rows as Row[],
        exec: async (sql: string) => {
          await client.query(sql);
        },
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten> {
    // LISTEN needs a session of its own: a pooled connection would be handed to other queries.
    const client = new pg.Client(clientOptions(this.connectionString, this.searchPath));
    await client.connect();
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    client.on('error', () => undefined);
    await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return async () => {
      await client.end().catch(() => undefined);
    };
  }

  async copyRows(target: string, rows: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await pipeline(Readable.from([rows]), client.query(copyFrom(`COPY ${target} FROM STDIN`)));
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}

function clientOptions(connectionString: string, searchPath: string | undefined): pg.ClientConfig {
  return {
    connectionString,
    types: pgTypes,
    ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
  };
}

/**
 * Bulk-loads rows written in COPY text format into `target` (`"schema"."table" ("col", …)`, from
 * code): COPY FROM STDIN on PostgreSQL, COPY FROM '/dev/blob' on PGlite.
 */
export function copyRows(db: Db, target: string, rows: string): Promise<void> {
  if (db instanceof PgliteDb || db instanceof PostgresDb) return db.copyRows(target, rows);
  throw new Error('This database handle cannot bulk-load rows.');
}

export interface ConnectOptions {
  databaseUrl?: string;
  /** Directory for PGlite's files; omitted means in memory (tests). */
  dataDir?: string;
  /** PostgreSQL only: the schema every connection uses first (tests isolate themselves this way). */
  searchPath?: string;
  poolSize?: number;
}

export async function connectDb(options: ConnectOptions): Promise<Db> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ ...clientOptions(options.databaseUrl, options.searchPath), max: options.poolSize ?? 10 });
    pool.on('error', () => undefined);
    const db = new PostgresDb(pool, options.databaseUrl, options.searchPath);
    await db.query('SELECT 1');
    return db;
  }
  if (options.dataDir) {
    const dir = path.join(options.dataDir, 'pglite');
    await mkdir(dir, { recursive: true });
    return new PgliteDb(await PGlite.create(dir));
  }
  return new PgliteDb(await PGlite.create());
}
