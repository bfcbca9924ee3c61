import type { Queryable } from './connect.js';

/**
 * A write that travels with another statement of the same transaction instead of taking a round
 * trip of its own (an idempotent request's key and answer, sent with the event its change
 * records). `sql` is a data-modifying statement with `RETURNING`, its parameters numbered from $1.
 * A statement that takes it runs it as a CTE named `rider` (`riderCte`) and sets `returned`.
 */
export interface Rider {
  sql: string;
  params: readonly unknown[];
  /** Whether it returned a row; unset until a statement has sent it. */
  returned?: boolean;
}

/** The rider wrote nothing (say, the row it claims was already there): its transaction is rolled back. */
export class RiderRefused extends Error {
  constructor() {
    super('the write sent with this transaction returned no row');
    this.name = 'RiderRefused';
  }
}

/** The rider as a CTE named `rider`, for a statement whose own parameters are $1…$`offset`. */
export function riderCte(rider: Rider, offset: number): string {
  return `rider AS (${rider.sql.replace(/\$(\d+)/g, (_, number: string) => `$${Number(number) + offset}`)})`;
}

/** Sends the rider on its own unless a statement took it; RiderRefused when it returned no row. */
export async function settleRider(tx: Queryable, rider: Rider): Promise<void> {
  rider.returned ??= (await tx.query(rider.sql, rider.params)).length > 0;
  if (!rider.returned) throw new RiderRefused();
}
