import type { Queryable } from '../db/connect.js';
import type { Rider } from '../db/rider.js';

export interface StoredAnswer {
  status: number;
  contentType: string;
  body: string;
}

export type KeyState =
  | { state: 'claimed' }
  | { state: 'running'; fingerprint: string }
  | { state: 'answered'; fingerprint: string; answer: StoredAnswer };

interface KeyRow {
  fingerprint: string;
  owner: string | null;
  status: number | null;
  content_type: string | null;
  body: string | null;
}

export interface Claim {
  orgId: string;
  key: string;
  fingerprint: string;
  owner: string;
  now: Date;
  lockMs: number;
  retainMs: number;
}

/**
 * Takes the key for this request, or says who has it. A key is free when it is new, expired, or
 * held by a request whose lock ran out (its process died before storing the answer).
 */
export async function claimKey(db: Queryable, claim: Claim): Promise<KeyState> {
  const { orgId, key, fingerprint, owner, now } = claim;
  const lockedUntil = new Date(now.getTime() + claim.lockMs);
  const expiresAt = new Date(now.getTime() + claim.retainMs);
  const taken = await db.query<{ owner: string }>(
    `INSERT INTO idempotency_keys AS k (org_id, key, fingerprint, owner, locked_until, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (org_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, locked_until = EXCLUDED.locked_until,
           status = NULL, content_type = NULL, body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE k.expires_at <= $6 OR (k.owner IS NOT NULL AND k.locked_until <= $6 AND k.fingerprint = EXCLUDED.fingerprint)
     RETURNING owner`,
    [orgId, key, fingerprint, owner, lockedUntil, now, expiresAt],
  );
  if (taken.length > 0) return { state: 'claimed' };
  const [row] = await db.query<KeyRow>(
    'SELECT fingerprint, owner, status, content_type, body FROM idempotency_keys WHERE org_id = $1 AND key = $2',
    [orgId, key],
  );
  // Deleted in between (the first request failed and let go): this one may run.
  if (!row) return claimKey(db, claim);
  if (row.owner !== null || row.status === null) return { state: 'running', fingerprint: row.fingerprint };
  return {
    state: 'answered',
    fingerprint: row.fingerprint,
    answer: { status: row.status, contentType: row.content_type ?? 'application/json; charset=utf-8', body: row.body ?? '' },
  };
}

/**
 * Takes the key with its answer at once, as a write to send in the transaction that made the change
 * (see `Rider`). A plain insert, cheaper than claimKey's upsert: a key that is there already, even
 * one whose time is up, fails it with a unique violation (`isTakenKey`), and the request falls back
 * to claimKey, which takes such a key over. A repeat that arrives while the first one's
 * transaction is open waits on it.
 */
export function keyWithAnswer(claim: Claim, answer: StoredAnswer): Rider {
  const { orgId, key, fingerprint, now } = claim;
  return {
    sql: `INSERT INTO idempotency_keys (org_id, key, fingerprint, owner, locked_until, status, content_type, body, created_at, expires_at)
     VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $4, $8)`,
    params: [orgId, key, fingerprint, now, answer.status, answer.contentType, answer.body, new Date(now.getTime() + claim.retainMs)],
  };
}

/** Whether `error` is keyWithAnswer's insert finding the key there already; its transaction is rolled back. */
export function isTakenKey(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'idempotency_keys_pkey';
}

/** Stores the answer of the request that holds the key (if it still does). */
export async function storeAnswer(db: Queryable, orgId: string, key: string, owner: string, answer: StoredAnswer): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET owner = NULL, status = $4, content_type = $5, body = $6
     WHERE org_id = $1 AND key = $2 AND owner = $3`,
    [orgId, key, owner, answer.status, answer.contentType, answer.body],
  );
}

/** Lets go of a key whose request failed on our side, so that a retry runs it again. */
export async function releaseKey(db: Queryable, orgId: string, key: string, owner: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND owner = $3', [orgId, key, owner]);
}

/** Deletes up to `limit` keys whose 24 hours are over; how many it deleted. */
export async function deleteExpiredKeys(db: Queryable, now: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM idempotency_keys WHERE (org_id, key) IN (
       SELECT org_id, key FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED
     ) RETURNING 1`,
    [now, limit],
  );
  return rows.length;
}
