import pg from 'pg';
import type { Queryable } from './connect.js';
import type { NamedStatement } from './named-statement.js';
import { objectRows } from './object-rows.js';
import { parseTimestamptz, timestamptz } from './timestamps.js';
import { DatabaseUnavailable, guarded } from './unavailable.js';

const int8 = 20;
/** bigint columns (counts, sums) as numbers: Vigil's never approach 2^53. timestamptz through a faster parser of pg's usual output. */
export const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === timestamptz) return parseTimestamptz;
    return oid === int8 ? Number : pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

const ignore = () => undefined;

export interface PooledDbOptions {
  /** Called before each statement of a transaction with the connection it runs on. */
  beforeStatement?: (client: pg.PoolClient) => void;
  /** Whether a NamedStatement is prepared under its name (PostgreSQL) or sent unnamed like any other. */
  keepsNamedStatements?: boolean;
}

/**
 * Statements and transactions through a pg pool: PostgreSQL's own connections, or the embedded
 * database's sessions (embedded.ts), which pg reaches the same way.
 */
export abstract class PooledDb implements Queryable {
  private readonly beforeStatement: (client: pg.PoolClient) => void;
  private readonly keepsNamedStatements: boolean;
  private readonly unnamedConfigs = new StatementConfigs();
  private readonly namedConfigs = new StatementConfigs();

  protected constructor(
    protected readonly pool: pg.Pool,
    options: PooledDbOptions = {},
  ) {
    this.beforeStatement = options.beforeStatement ?? ignore;
    this.keepsNamedStatements = options.keepsNamedStatements ?? false;
    // The pool listens for errors only on idle connections. A server that goes away (restart, admin
    // shutdown) while a connection is checked out between two statements would otherwise be an
    // uncaught 'error' event; the next statement on it fails instead, and release() destroys it.
    this.pool.on('error', ignore);
    this.pool.on('connect', (client) => client.on('error', ignore));
  }

  query<Row>(sql: string | NamedStatement, params: readonly unknown[] = []): Promise<Row[]> {
    return guarded(async () => rowsOf<Row>(await this.pool.query(this.arrayRows(sql), params as unknown[])));
  }

  async exec(sql: string): Promise<void> {
    await guarded(() => this.pool.query(sql));
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.onConnection(async (client) => {
      await this.statement(client, 'BEGIN');
      try {
        const result = await work({
          query: async <Row>(sql: string | NamedStatement, params: readonly unknown[] = []) =>
            rowsOf<Row>(await this.statement(client, this.arrayRows(sql), params)),
          exec: async (sql: string) => {
            await this.statement(client, sql);
          },
        });
        await this.statement(client, 'COMMIT');
        return result;
      } catch (error) {
        // A connection that failed is destroyed by release(), which ends its transaction on the server;
        // a ROLLBACK sent on it would wait a whole statement timeout more on a frozen server.
        if (!(error instanceof DatabaseUnavailable)) await client.query('ROLLBACK').catch(ignore);
        throw error;
      }
    });
  }

  /** Runs `work` on a connection of the pool, which is destroyed afterwards if it lost its server. */
  protected async onConnection<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await guarded(() => this.pool.connect());
    let failure: unknown;
    try {
      return await work(client);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // A connection that lost its server is destroyed rather than handed to the next query.
      client.release(failure instanceof DatabaseUnavailable ? failure : undefined);
    }
  }

  /** A statement whose rows pg hands over as arrays (objectRows makes the objects); its values go beside it. */
  private arrayRows(sql: string | NamedStatement): pg.QueryArrayConfig {
    if (typeof sql === 'string') return this.unnamedConfigs.of(sql, sql, undefined);
    return this.keepsNamedStatements ? this.namedConfigs.of(sql.name, sql.text, sql.name) : this.unnamedConfigs.of(sql.text, sql.text, undefined);
  }

  private statement(client: pg.PoolClient, statement: string): Promise<unknown>;
  private statement(client: pg.PoolClient, statement: pg.QueryArrayConfig, values: readonly unknown[]): Promise<pg.QueryArrayResult>;
  private statement(client: pg.PoolClient, statement: string | pg.QueryArrayConfig, values?: readonly unknown[]): Promise<unknown> {
    this.beforeStatement(client);
    return guarded(() => (typeof statement === 'string' ? client.query(statement) : client.query(statement, values as unknown[])));
  }
}

/**
 * SQL texts are written in code, so few; the bounds only guard against a runaway of ad-hoc SQL (a
 * generated list of placeholders), whose configs are made afresh instead: a few MB kept at most.
 */
const maxStatementConfigs = 1_000;
const maxKeptTextLength = 4_096;

/**
 * One query config per statement, made once. pg copies every config it is given property by
 * property through their descriptors (`cloneQueryConfig` in pg/lib/utils.js): 1.4–2.6 µs and
 * several short-lived objects for `{ name, text, values, rowMode }`, on every statement. Its copy
 * keeps the config's prototype, so the parts that never change sit on a frozen prototype and the
 * config pg copies has no property of its own (0.1 µs); the values travel beside it.
 */
class StatementConfigs {
  private readonly configs = new Map<string, pg.QueryArrayConfig>();

  of(key: string, text: string, name: string | undefined): pg.QueryArrayConfig {
    let config = this.configs.get(key);
    if (config === undefined) {
      config = Object.create(Object.freeze({ name, text, rowMode: 'array' })) as pg.QueryArrayConfig;
      if (text.length > maxKeptTextLength) return config;
      if (this.configs.size >= maxStatementConfigs) this.configs.clear();
      this.configs.set(key, config);
    }
    return config;
  }
}

const rowsOf = <Row>(result: pg.QueryArrayResult): Row[] => objectRows<Row>(result.fields, result.rows);
