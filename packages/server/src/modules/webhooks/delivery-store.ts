import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { PageWindow } from '../../platform/pagination.js';
import { deliveryPayload } from '../../webhooks/payload.js';
import type { Attempt, AttemptError, AttemptTrigger, Delivery, DeliveryStatus } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface DeliveryRow {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  leased_until: Date | null;
  created_at: Date;
}

interface EventRow {
  id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  number: number;
  trigger: AttemptTrigger;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  error: AttemptError | null;
  error_detail: string | null;
  response_body: string | null;
  request_headers: Record<string, string> | null;
}

const toAttempt = (row: AttemptRow): Attempt => ({
  number: row.number,
  trigger: row.trigger,
  startedAt: isoTimestamp(row.started_at),
  durationMs: row.duration_ms,
  httpStatus: row.http_status,
  error: row.error,
  errorDetail: row.error_detail,
  responseBody: row.response_body,
  requestHeaders: row.request_headers,
});

/** While an attempt is in flight none is due: its outcome decides when the next one is. */
function nextAttemptAt(row: DeliveryRow, now: Date): string | null {
  if (!row.next_attempt_at) return null;
  if (row.leased_until !== null && row.leased_until > now) return null;
  return isoTimestamp(row.next_attempt_at);
}

/**
 * Deliveries with their events and attempts, read in two more queries for the whole list (callers
 * read in one snapshot). An attempt shows once it has ended: with its outcome, or lost with its worker.
 */
async function withDetails(db: Queryable, rows: DeliveryRow[], now: Date): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const events = await db.query<EventRow>(`SELECT id, data, created_at FROM events WHERE id = ANY ($1::text[])`, [
    rows.map((row) => row.event_id),
  ]);
  const attempts = await db.query<AttemptRow>(
    `SELECT delivery_id, number, trigger, started_at, duration_ms, http_status, error, error_detail, response_body, request_headers FROM webhook_attempts
     WHERE delivery_id = ANY ($1::text[]) AND lease_token IS NULL ORDER BY delivery_id, number`,
    [ids],
  );
  const eventById = new Map(events.map((event) => [event.id, event]));
  const attemptsOf = new Map<string, Attempt[]>(ids.map((id) => [id, []]));
  for (const attempt of attempts) attemptsOf.get(attempt.delivery_id)?.push(toAttempt(attempt));
  return rows.map((row) => {
    const event = eventById.get(row.event_id);
    return {
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      event: row.event,
      status: row.status,
      attempts: attemptsOf.get(row.id) ?? [],
      nextAttemptAt: nextAttemptAt(row, now),
      createdAt: isoTimestamp(row.created_at),
      payload: deliveryPayload(row.event, row.org_id, event?.created_at ?? row.created_at, event?.data ?? {}),
    };
  });
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  event?: string;
}

export async function listDeliveries(
  db: Queryable,
  orgId: string,
  webhookId: string,
  filters: DeliveryFilters,
  window: PageWindow,
  now: Date,
): Promise<Delivery[]> {
  const rows = await selectPage<DeliveryRow>(db, {
    from: 'webhook_deliveries',
    orgId,
    where: { webhook_id: webhookId, status: filters.status, event: filters.event },
    window,
  });
  return withDetails(db, rows, now);
}

export async function findDelivery(db: Queryable, orgId: string, webhookId: string, id: string, now: Date): Promise<Delivery | undefined> {
  const rows = await db.query<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2 AND id = $3`, [
    orgId,
    webhookId,
    id,
  ]);
  return (await withDetails(db, rows, now))[0];
}

/**
 * Makes a manual attempt due now. A delivery whose attempt is in flight keeps its lease, so no
 * second attempt starts beside it; the worker that finishes it sees the request and keeps it due.
 */
export async function requestManualAttempt(db: Queryable, orgId: string, webhookId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_deliveries
     SET next_trigger = 'manual', next_attempt_at = $4, updated_at = $4
     WHERE org_id = $1 AND webhook_id = $2 AND id = $3 RETURNING id`,
    [orgId, webhookId, id, now],
  );
  return rows.length > 0;
}

/**
 * Deletes up to `limit` deliveries that are finished (delivered or failed, nothing due) and last
 * changed before `before`, with their attempts; how many it deleted. Rows locked by a claim or a
 * retry request are passed over.
 */
export async function deleteFinishedDeliveries(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE next_attempt_at IS NULL AND updated_at < $1 AND status IN ('delivered', 'failed') AND lease_token IS NULL
       LIMIT $2 FOR UPDATE SKIP LOCKED
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/** Failed deliveries created since `since` become due now, as manual attempts. */
export async function recoverFailedDeliveries(db: Queryable, orgId: string, webhookId: string, since: Date, now: Date): Promise<number> {
  const [result] = await db.query<{ count: number }>(
    `WITH recovered AS (
       UPDATE webhook_deliveries SET next_trigger = 'manual', next_attempt_at = $4, updated_at = $4
       WHERE org_id = $1 AND webhook_id = $2 AND status = 'failed' AND next_attempt_at IS NULL AND created_at >= $3
       RETURNING 1
     )
     SELECT count(*)::int AS count FROM recovered`,
    [orgId, webhookId, since, now],
  );
  return result?.count ?? 0;
}
