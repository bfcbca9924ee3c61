import type { Queryable } from '../db/connect.js';
import { namedStatement } from '../db/named-statement.js';
import type { AttemptTrigger, DeliveryStatus } from '../modules/webhooks/schema.js';
import type { AttemptOutcome } from './sender.js';

export interface ClaimRequest {
  now: Date;
  /** Claimed rows become due again at this time if their worker never reports back. */
  leaseUntil: Date;
  token: string;
  limit: number;
  /** At most this many attempts of one webhook in flight, counting those already running. */
  perWebhook: number;
  /** Attempts this worker already runs, by webhook. */
  inFlightByWebhook: ReadonlyMap<string, number>;
  /**
   * Deliveries that go out at once get their attempt recorded as started by the claim itself:
   * up to `limit` per webhook being handled, counting the `handlingByWebhook` already are; not a
   * delivery whose webhook is inactive or whose first scheduled attempt is `firstAttemptDelayMs`
   * after it was queued and not due yet (those are given back without an attempt).
   */
  startAtOnce?: { limit: number; handlingByWebhook: ReadonlyMap<string, number>; firstAttemptDelayMs: number };
  /**
   * Only these webhooks' rows, at most this many of each (a refill of webhooks the worker already
   * sends for): no other webhook is looked at, where a search probes every webhook with rows queued.
   */
  refill?: ReadonlyMap<string, number>;
}

export interface ClaimedDelivery {
  id: string;
  orgId: string;
  webhookId: string;
  event: string;
  status: DeliveryStatus;
  scheduledAttempts: number;
  trigger: AttemptTrigger;
  createdAt: Date;
  url: string;
  webhookActive: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  eventData: Record<string, unknown>;
  eventAt: Date;
  /** It still held the lease of a worker that never reported back: that worker's attempt may be open. */
  leaseLapsed: boolean;
  /** The number of the attempt the claim recorded as started (see ClaimRequest.startAtOnce); undefined if none. */
  startedAttempt: number | undefined;
}

interface ClaimedRow {
  id: string;
  org_id: string;
  webhook_id: string;
  event: string;
  status: DeliveryStatus;
  scheduled_attempts: number;
  next_trigger: AttemptTrigger | null;
  created_at: Date;
  url: string;
  is_active: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  event_data: Record<string, unknown>;
  event_at: Date;
  lease_lapsed: boolean;
  started: boolean;
  attempt_count: number;
}

/** The webhook's rows due at `now` that hold no live lease: a range of its own end of the queue. */
const dueRowsOf = (webhookId: string, now: string) =>
  `webhook_id = ${webhookId} AND next_attempt_at <= ${now} AND (leased_until IS NULL OR leased_until <= ${now})`;

/** A webhook's oldest due rows that hold no live lease, at most `limit`. */
const oldestDueOf = (webhookId: string, limit: string) => `
         SELECT id, webhook_id, next_attempt_at FROM webhook_deliveries
         WHERE ${dueRowsOf(webhookId, '$1')}
         ORDER BY next_attempt_at LIMIT ${limit}`;

/**
 * Every webhook with rows in the queue (due or scheduled later), one index probe each: a loose
 * scan of webhook_deliveries_due_by_webhook that steps from one webhook to the next, however
 * many rows each one has queued.
 */
const queuedWebhooks = `
       SELECT min(webhook_id) FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL
       UNION ALL
       SELECT (SELECT min(webhook_id) FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL AND webhook_id > q.webhook_id)
       FROM queued_webhooks q WHERE q.webhook_id IS NOT NULL`;

/**
 * The oldest due rows of every webhook not passed over ($2), up to $4 of each and $3 in all. Each
 * webhook is read from its own end of the queue, so a webhook passed over with a backlog of any
 * size costs the search one probe, not a walk past its rows; with one index of all due rows in time
 * order, the planner took that walk (BENCHMARKS.md, 2026-11-29 afternoon).
 */
const searchWindow = `
       SELECT d.id, d.webhook_id, d.next_attempt_at FROM queued_webhooks q
       CROSS JOIN LATERAL (${oldestDueOf('q.webhook_id', '$4')}
       ) d
       WHERE q.webhook_id <> ALL ($2::text[])
       ORDER BY d.next_attempt_at LIMIT $3`;

/** The oldest due rows of each webhook in $14, at most its room ($15). */
const refillWindow = `
       SELECT d.id, d.webhook_id, d.next_attempt_at FROM unnest($14::text[], $15::int[]) AS r (webhook_id, room)
       CROSS JOIN LATERAL (${oldestDueOf('r.webhook_id', 'least(r.room, $3)')}
       ) d
       WHERE d.webhook_id <> ALL ($2::text[])`;

/**
 * The claim's statement (see claimDueDeliveries) with its window of candidate rows: a search of
 * every queued webhook, or a refill of some. Named, so that PostgreSQL parses it once per
 * connection; it still plans it for each claim's values, its generic plan looking costlier to it.
 */
const claimSql = (window: string) =>
  `WITH RECURSIVE busy AS (
       SELECT * FROM unnest($8::text[], $9::int[]) AS b (webhook_id, in_flight)
     ), handling AS (
       SELECT * FROM unnest($10::text[], $11::int[]) AS h (webhook_id, count)
     ), ${window}
     ), candidates AS (
       SELECT w.id, $4 - coalesce(b.in_flight, 0) AS room, $12 - coalesce(h.count, 0) AS start_room,
         row_number() OVER (PARTITION BY w.webhook_id ORDER BY w.next_attempt_at, w.id) AS rank
       FROM window_rows w LEFT JOIN busy b ON b.webhook_id = w.webhook_id LEFT JOIN handling h ON h.webhook_id = w.webhook_id
     ), locked AS (
       SELECT d.id, d.lease_token IS NOT NULL AS lease_lapsed, c.rank <= c.start_room AS start_room, d.attempt_count AS count_before
       FROM webhook_deliveries d JOIN candidates c ON c.id = d.id
       WHERE d.id = ANY (ARRAY(SELECT id FROM candidates WHERE rank <= room))
         AND d.next_attempt_at <= $1 AND (d.leased_until IS NULL OR d.leased_until <= $1)
       ORDER BY d.next_attempt_at LIMIT $5
       FOR UPDATE OF d SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET lease_token = $6, leased_until = $7,
         attempt_count = d.attempt_count + CASE WHEN locked.start_room AND w.is_active
           AND NOT (coalesce(d.next_trigger, 'scheduled') = 'scheduled' AND d.scheduled_attempts = 0
                    AND d.created_at + $13 * interval '1 millisecond' > $1) THEN 1 ELSE 0 END
       FROM locked, webhooks w, events e
       WHERE d.id = locked.id AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.org_id, d.webhook_id, d.event, d.status, d.scheduled_attempts, d.next_trigger, d.created_at,
         w.url, w.is_active, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at,
         e.data AS event_data, e.created_at AS event_at, locked.lease_lapsed,
         d.attempt_count > locked.count_before AS started, d.attempt_count
     ), started AS (
       INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, lease_token, leased_until)
       SELECT id, attempt_count, coalesce(next_trigger, 'scheduled'), $1, $6, $7 FROM claimed WHERE started
     )
     SELECT * FROM claimed`;

const claimStatements = {
  search: namedStatement(claimSql(`queued_webhooks (webhook_id) AS (${queuedWebhooks}
     ), window_rows AS (${searchWindow}`)),
  refill: namedStatement(claimSql(`window_rows AS (${refillWindow}`)),
};

/**
 * Claims due deliveries in one statement: a bounded window of the oldest due rows that hold no
 * live lease (of every webhook, or of the `refill` ones), each webhook's read from its own end of
 * the queue, at most `perWebhook` of each webhook counting those this worker already holds,
 * locked with SKIP LOCKED so concurrent workers take disjoint rows, and leased until `leaseUntil`.
 * The due condition is checked again on the locked row, so a row another worker has just claimed
 * and committed is passed over. Only the lease columns and the attempt counter change (no index
 * covers them), which keeps the update in place. The attempts of the deliveries that go out at
 * once are recorded as started in the same statement (startAttempts' work, a round trip saved).
 */
export async function claimDueDeliveries(db: Queryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const busy = [...request.inFlightByWebhook];
  const full = busy.filter(([, count]) => count >= request.perWebhook).map(([webhookId]) => webhookId);
  const startAtOnce = request.startAtOnce;
  const handling = [...(startAtOnce?.handlingByWebhook ?? [])];
  const rows = await db.query<ClaimedRow>(
    request.refill ? claimStatements.refill : claimStatements.search,
    [
      request.now,
      full,
      request.limit * 4,
      request.perWebhook,
      request.limit,
      request.token,
      request.leaseUntil,
      busy.map(([webhookId]) => webhookId),
      busy.map(([, count]) => count),
      handling.map(([webhookId]) => webhookId),
      handling.map(([, count]) => count),
      startAtOnce?.limit ?? 0,
      startAtOnce?.firstAttemptDelayMs ?? 0,
      ...(request.refill ? [[...request.refill.keys()], [...request.refill.values()]] : []),
    ],
  );
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    webhookId: row.webhook_id,
    event: row.event,
    status: row.status,
    scheduledAttempts: row.scheduled_attempts,
    trigger: row.next_trigger ?? 'scheduled',
    createdAt: row.created_at,
    url: row.url,
    webhookActive: row.is_active,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    eventData: row.event_data,
    eventAt: row.event_at,
    leaseLapsed: row.lease_lapsed,
    startedAttempt: row.started ? row.attempt_count : undefined,
  }));
}

/** Deliveries due now and not being attempted, and how long the oldest of them has been due (seconds; 0 when none). */
export async function dueDeliveries(db: Queryable): Promise<{ due: number; oldestAgeSeconds: number }> {
  const [row] = await db.query<{ due: number; oldest_age: number | null }>(
    `WITH RECURSIVE queued_webhooks (webhook_id) AS (${queuedWebhooks}
     )
     SELECT count(*)::int AS due, extract(epoch FROM now() - min(d.next_attempt_at))::float8 AS oldest_age
     FROM queued_webhooks q CROSS JOIN LATERAL (
       SELECT next_attempt_at FROM webhook_deliveries WHERE ${dueRowsOf('q.webhook_id', 'now()')}
     ) d`,
  );
  return { due: row?.due ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age ?? 0) };
}

export interface AttemptStart {
  deliveryId: string;
  token: string;
  trigger: AttemptTrigger;
}

/**
 * Records attempts as started before their requests go out, numbered from each delivery's own
 * counter, and renews the lease so that it runs from the start of the attempt. A delivery whose
 * lease another worker has taken meanwhile gets no attempt: the answer leaves it out.
 */
export async function startAttempts(db: Queryable, starts: AttemptStart[], now: Date, leaseUntil: Date): Promise<Map<string, number>> {
  const rows = await db.query<{ delivery_id: string; number: number }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, token, trigger)
     ), started AS (
       UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, leased_until = $5
       FROM input i WHERE d.id = i.id AND d.lease_token = i.token
       RETURNING d.id, d.attempt_count
     )
     INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, lease_token, leased_until)
     SELECT i.id, s.attempt_count, i.trigger, $4, i.token, $5 FROM input i JOIN started s ON s.id = i.id
     RETURNING delivery_id, number`,
    [starts.map((start) => start.deliveryId), starts.map((start) => start.token), starts.map((start) => start.trigger), now, leaseUntil],
  );
  return new Map(rows.map((row) => [row.delivery_id, row.number]));
}

/**
 * Closes the attempts whose lease ended with no outcome (their worker died or lost the database)
 * as `worker_lost`, with the time they were given as their duration. Their requests may well have
 * reached the receiver; the delivery is due again, so another attempt follows. Limited to
 * `deliveryIds` when given. Should the worker still report later, its outcome replaces this one.
 */
export async function closeLostAttempts(db: Queryable, now: Date, deliveryIds?: string[]): Promise<number> {
  const rows = await db.query(
    `UPDATE webhook_attempts SET error = 'worker_lost',
       duration_ms = round(extract(epoch FROM leased_until - started_at) * 1000)::int, lease_token = NULL, leased_until = NULL
     WHERE lease_token IS NOT NULL AND leased_until <= $1 AND ($2::text[] IS NULL OR delivery_id = ANY ($2::text[]))
     RETURNING 1`,
    [now, deliveryIds ?? null],
  );
  return rows.length;
}

export interface AttemptRecord {
  deliveryId: string;
  /** The attempt's number, given when it started. */
  number: number;
  token: string;
  trigger: AttemptTrigger;
  /** The delivery's state after this attempt, and when the next one is due (null: none). */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  scheduled: boolean;
  /** What came back, and the request headers as sent (signatures included), for the delivery's history. */
  outcome: AttemptOutcome;
}

/**
 * recordAttempts' statement, named: PostgreSQL took about 2 ms to plan it, and runs it with its
 * generic plan after five runs. The ids come once more as an array ($4): the planner takes
 * json_to_recordset for 100 rows it knows nothing of and, on a queue without fresh statistics
 * (right after a burst), joined them to a scan of every delivery, once per batch; `id = ANY` makes
 * the primary key the way in whatever the statistics say (webhooks.queue-plans.test.ts).
 */
const recordAttemptsStatement = namedStatement(
  `WITH input AS (
       SELECT * FROM json_to_recordset($1::json) AS t(id text, number int, token text, trigger text, status text, next_at timestamptz,
         scheduled int, started_at timestamptz, duration_ms int, http_status int, error text, error_detail text, response_body text, request_headers jsonb)
     ), updated AS (
       UPDATE webhook_deliveries d SET
         scheduled_attempts = d.scheduled_attempts + i.scheduled,
         status = CASE WHEN i.status = 'delivered' OR d.lease_token = i.token THEN i.status ELSE d.status END,
         next_attempt_at = CASE
           WHEN d.lease_token IS DISTINCT FROM i.token THEN d.next_attempt_at
           WHEN d.next_trigger = 'manual' AND i.trigger = 'scheduled' THEN $2
           ELSE i.next_at END,
         next_trigger = CASE
           WHEN d.lease_token IS DISTINCT FROM i.token THEN d.next_trigger
           WHEN d.next_trigger = 'manual' AND i.trigger = 'scheduled' THEN 'manual'
           WHEN i.next_at IS NULL THEN NULL
           ELSE 'scheduled' END,
         lease_token = CASE WHEN d.lease_token = i.token THEN NULL ELSE d.lease_token END,
         leased_until = CASE WHEN d.lease_token = i.token THEN NULL ELSE d.leased_until END,
         updated_at = $2
       FROM input i WHERE d.id = i.id AND d.id = ANY ($4::text[])
     ), healthy AS (
       UPDATE webhooks SET failing_since = NULL WHERE id = ANY ($3::text[]) AND failing_since IS NOT NULL
     )
     UPDATE webhook_attempts a SET started_at = i.started_at, duration_ms = i.duration_ms, http_status = i.http_status,
       error = i.error, error_detail = i.error_detail, response_body = i.response_body, request_headers = i.request_headers,
       lease_token = NULL, leased_until = NULL
     FROM input i WHERE a.delivery_id = i.id AND a.number = i.number AND a.delivery_id = ANY ($4::text[])`,
);

/**
 * Records a batch of finished attempts in one statement: each delivery's state, the outcome of its
 * attempt row, and the end of a failing streak for each webhook in `healthy` (see
 * recordWebhookHealth). A worker that lost its lease (the row was claimed again) still records its
 * attempt, and a success still counts, but it leaves the schedule alone. A manual retry asked for
 * while a scheduled attempt was in flight stays due now.
 */
export async function recordAttempts(db: Queryable, records: AttemptRecord[], now: Date, healthy: string[] = []): Promise<void> {
  // One JSON parameter rather than a text array per column: pg escapes every element of an array
  // parameter in JavaScript (the request headers' JSON twice over), JSON.stringify is native.
  const input = records.map((record) => ({
    id: record.deliveryId,
    number: record.number,
    token: record.token,
    trigger: record.trigger,
    status: record.status,
    next_at: record.nextAttemptAt,
    scheduled: record.scheduled ? 1 : 0,
    started_at: record.outcome.startedAt,
    duration_ms: record.outcome.durationMs,
    http_status: record.outcome.httpStatus,
    error: record.outcome.error,
    error_detail: record.outcome.errorDetail,
    response_body: record.outcome.responseBody,
    request_headers: record.outcome.requestHeaders,
  }));
  await db.query(recordAttemptsStatement, [JSON.stringify(input), now, healthy, records.map((record) => record.deliveryId)]);
}

/** Gives a claimed delivery back without an attempt: not due yet, or its webhook stopped receiving. */
export async function releaseClaim(
  db: Queryable,
  id: string,
  token: string,
  change: { status: DeliveryStatus; nextAttemptAt: Date | null },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = $3, next_attempt_at = $4, next_trigger = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE next_trigger END,
       lease_token = NULL, leased_until = NULL, updated_at = $5
     WHERE id = $1 AND lease_token = $2`,
    [id, token, change.status, change.nextAttemptAt, now],
  );
}

/** Hands back claims that were never started, so they are due again now rather than when their leases end. */
export async function releaseLeases(db: Queryable, claims: { id: string; token: string }[]): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries d SET lease_token = NULL, leased_until = NULL
     FROM unnest($1::text[], $2::text[]) AS c (id, token)
     WHERE d.id = c.id AND d.lease_token = c.token`,
    [claims.map((claim) => claim.id), claims.map((claim) => claim.token)],
  );
}

export interface UnsentHold {
  /** Deliveries this worker knows it claimed, with the claim's token. */
  held: { id: string; token: string }[];
  /** Tokens of claims whose answer never came: whatever they took was due by `claimedBy`. */
  claimTokens: string[];
  claimedBy: Date | null;
}

/**
 * Gives back deliveries this worker holds but will not send (a write for them failed, so it cannot
 * know what it holds), and closes as `not_sent` the attempts it had recorded as started for them:
 * another worker, or this one, may take them at once instead of when their leases end. Only rows
 * that still carry the worker's token change, so a delivery taken over meanwhile is left alone.
 * A failed claim's deliveries are found among the due rows (a claim does not change when a row
 * is due; the index on it bounds the search). Answers how many attempts were closed.
 */
export async function releaseUnsent(db: Queryable, hold: UnsentHold): Promise<number> {
  const rows = await db.query(
    `WITH held AS (
       SELECT * FROM unnest($1::text[], $2::text[]) AS h (id, token)
     ), released AS (
       UPDATE webhook_deliveries d SET lease_token = NULL, leased_until = NULL
       FROM held h WHERE d.id = h.id AND d.lease_token = h.token
     ), released_claims AS (
       UPDATE webhook_deliveries d SET lease_token = NULL, leased_until = NULL
       WHERE d.next_attempt_at <= $4 AND d.lease_token = ANY ($3::text[])
     )
     UPDATE webhook_attempts a SET error = 'not_sent', duration_ms = 0, lease_token = NULL, leased_until = NULL
     FROM (
       SELECT id, token FROM held
       UNION SELECT delivery_id, lease_token FROM webhook_attempts WHERE lease_token IS NOT NULL AND lease_token = ANY ($3::text[])
     ) t
     WHERE a.delivery_id = t.id AND a.lease_token = t.token
     RETURNING 1`,
    [hold.held.map((h) => h.id), hold.held.map((h) => h.token), hold.claimTokens, hold.claimedBy],
  );
  return rows.length;
}

/**
 * Tracks since when each webhook has been failing: a failure starts it if it is not running yet
 * (a success clears it, in recordAttempts). Rows are only written when that changes, so healthy
 * traffic costs nothing.
 */
export async function recordFailingWebhooks(db: Queryable, failing: { webhookId: string; since: Date }[]): Promise<void> {
  if (failing.length > 0) {
    await db.query(
      `UPDATE webhooks w SET failing_since = f.since
       FROM unnest($1::text[], $2::timestamptz[]) AS f (id, since)
       WHERE w.id = f.id AND w.failing_since IS NULL`,
      [failing.map((f) => f.webhookId), failing.map((f) => f.since)],
    );
  }
}
