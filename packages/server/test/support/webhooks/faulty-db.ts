import type { Db } from '../../../src/db/connect.js';
import { DatabaseUnavailable } from '../../../src/db/unavailable.js';
import { statementText } from '../../../src/db/named-statement.js';

export type Fault =
  /** The statement is carried out, then the caller sees the database fail: its answer was lost. */
  | 'answer lost'
  /** The caller sees the database fail and the statement is not carried out. */
  | 'refused'
  /** The statement is sent as it is, once `between` has run (a server stopped just before it). */
  | 'as it is';

export interface FaultyDb {
  db: Db;
  /**
   * Arms one fault for the next statement (outside transactions) whose text matches `pattern`;
   * `between` runs where the fault strikes (after a carried-out statement, before the others).
   * Resolves once it has struck.
   */
  next(pattern: RegExp, fault: Fault, between?: () => Promise<void>): Promise<void>;
}

/** The database a worker sees, with the faults of an outage placed exactly where a test wants them. */
export function faultyDb(target: Db): FaultyDb {
  let armed: { pattern: RegExp; fault: Fault; between?: () => Promise<void>; struck: () => void } | undefined;
  const lost = () => new DatabaseUnavailable(new Error('Connection terminated unexpectedly'));
  const query: Db['query'] = async (sql, params) => {
    const fault = armed?.pattern.test(statementText(sql)) ? armed : undefined;
    if (!fault) return target.query(sql, params);
    armed = undefined;
    try {
      if (fault.fault === 'answer lost') {
        await target.query(sql, params);
        await fault.between?.();
        throw lost();
      }
      await fault.between?.();
      if (fault.fault === 'refused') throw lost();
      return await target.query(sql, params);
    } finally {
      fault.struck();
    }
  };
  const db = new Proxy(target, {
    get(object, property) {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
  return {
    db,
    next: (pattern, fault, between) => new Promise<void>((struck) => (armed = { pattern, fault, between, struck })),
  };
}
