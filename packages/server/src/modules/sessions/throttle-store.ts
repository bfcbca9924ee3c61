import type { Queryable } from '../../db/connect.js';

/** What the throttle knows of one scope's recent failures (reservations included). */
export interface ScopeFailures {
  count: number;
  oldest: Date;
  latest: Date;
}

/**
 * Serialises the throttle's decisions on these scopes until the transaction ends, in every process
 * sharing the database; taken one scope at a time in a fixed order, so two attempts never deadlock.
 */
export async function lockScopes(tx: Queryable, scopes: string[]): Promise<void> {
  for (const scope of [...scopes].sort()) {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 21))`, [`sign-in-throttle:${scope}`]);
  }
}

/** Forgets failures older than the window, then counts the rest per scope. */
export async function recentFailures(tx: Queryable, scopes: string[], since: Date): Promise<Map<string, ScopeFailures>> {
  await tx.query(`DELETE FROM sign_in_failures WHERE scope = ANY($1::text[]) AND at <= $2`, [scopes, since]);
  const rows = await tx.query<{ scope: string; count: number; oldest: Date; latest: Date }>(
    `SELECT scope, count(*)::int AS count, min(at) AS oldest, max(at) AS latest
       FROM sign_in_failures WHERE scope = ANY($1::text[]) GROUP BY scope`,
    [scopes],
  );
  return new Map(rows.map((row) => [row.scope, { count: row.count, oldest: row.oldest, latest: row.latest }]));
}

/** One failure per scope, recorded before the attempt is checked (removed again if it succeeds). */
export async function insertFailures(tx: Queryable, scopes: string[], at: Date): Promise<void> {
  await tx.query(`INSERT INTO sign_in_failures (scope, at) SELECT unnest($1::text[]), $2`, [scopes, at]);
}

/** Removes one failure of each scope recorded at `at`: the reservation of an attempt that succeeded. */
export async function removeOneFailure(db: Queryable, scopes: string[], at: Date): Promise<void> {
  await db.query(
    `DELETE FROM sign_in_failures WHERE ctid IN (
       SELECT DISTINCT ON (scope) ctid FROM sign_in_failures WHERE scope = ANY($1::text[]) AND at = $2)`,
    [scopes, at],
  );
}

export async function forgetFailures(db: Queryable, scopes: string[]): Promise<void> {
  await db.query(`DELETE FROM sign_in_failures WHERE scope = ANY($1::text[])`, [scopes]);
}
