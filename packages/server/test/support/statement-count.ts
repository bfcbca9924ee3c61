import type { Db, Queryable } from '../../src/db/connect.js';
import { type NamedStatement, statementText } from '../../src/db/named-statement.js';

/**
 * What a request runs besides its own work, on a timer or when a cache expires: the batched
 * last-used times of API keys and usage counts (written every few seconds), and the API-key grant
 * (looked up again when its 500 ms are over).
 */
const notThisRequest = [/UPDATE api_keys k SET last_used_at/, /INSERT INTO usage_daily/, /FROM api_keys k JOIN organizations o/];

/** Whether a counted statement is the request's own work: counts "with warm caches" leave the others out. */
export const isTheRequestsOwn = (sql: string): boolean => !notThisRequest.some((pattern) => pattern.test(sql));

export interface CountedDb {
  /** The database as the app should be given it: every statement it runs is recorded. */
  db: Db;
  /** The SQL of every statement since the last `clear()`, in order; a transaction adds its BEGIN and its COMMIT (or ROLLBACK). */
  statements: string[];
  clear(): void;
}

/**
 * Records the statements run through `db`, its transactions included. A Proxy rather than a class,
 * so that what the database layer recognizes by its class (bulk COPY) still works through it.
 */
export function countStatements(db: Db): CountedDb {
  const statements: string[] = [];
  const counted = (target: Queryable): Queryable => ({
    query: <Row>(sql: string | NamedStatement, params?: readonly unknown[]) => {
      statements.push(statementText(sql));
      return target.query<Row>(sql, params);
    },
    exec: (sql: string) => {
      statements.push(sql);
      return target.exec(sql);
    },
  });
  const transaction = <T>(work: (tx: Queryable) => Promise<T>): Promise<T> => {
    statements.push('BEGIN');
    return db.transaction((tx) => work(counted(tx))).finally(() => statements.push('COMMIT or ROLLBACK'));
  };
  const wrapped = new Proxy(db, {
    get(target, property) {
      if (property === 'query' || property === 'exec') return counted(target)[property];
      if (property === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: wrapped, statements, clear: () => statements.splice(0) };
}
