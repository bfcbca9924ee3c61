import type { Db, Queryable } from './connect.js';

/**
 * Runs several reads against one snapshot. Under PostgreSQL's default READ COMMITTED each statement
 * sees what committed before it, so a row and its children read in two statements can disagree.
 */
export function readSnapshot<T>(db: Db, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return work(tx);
  });
}
