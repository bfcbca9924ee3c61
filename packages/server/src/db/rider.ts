import type { Queryable } from './connect.js';

/**
 * A write that travels with another statement of the same transaction instead of taking a round
 * trip of its own (an idempotent request's key and answer, sent with the event its change
 * records). `sql` is one data-modifying statement, its parameters numbered from $1. A statement
 * that takes it runs it as a CTE named `rider` (`riderCte`) and sets `sent`. A rider that cannot
 * write (the row it inserts is there already) fails that statement, and so its transaction.
 */
export interface Rider {
  sql: string;
  params: readonly unknown[];
  /** Set by the statement that sent it. */
  sent?: boolean;
}

/**
 * Each rider's CTE by its text and offset, made once: riders and the statements that take them are
 * written in the code (a few texts), and one runs with every keyed POST.
 */
const ctes = new Map<string, Map<number, string>>();

/** The rider as a CTE named `rider`, for a statement whose own parameters are $1…$`offset`. */
export function riderCte(rider: Rider, offset: number): string {
  let byOffset = ctes.get(rider.sql);
  if (byOffset === undefined) ctes.set(rider.sql, (byOffset = new Map()));
  let cte = byOffset.get(offset);
  if (cte === undefined) {
    cte = `rider AS (${rider.sql.replace(/\$(\d+)/g, (_, number: string) => `$${Number(number) + offset}`)})`;
    byOffset.set(offset, cte);
  }
  return cte;
}

/** Sends the rider on its own unless a statement took it. */
export async function settleRider(tx: Queryable, rider: Rider): Promise<void> {
  if (rider.sent) return;
  await tx.query(rider.sql, rider.params);
  rider.sent = true;
}
