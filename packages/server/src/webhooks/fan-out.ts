import type { Queryable } from '../db/connect.js';
import { newId } from '../platform/ids.js';

/** Workers LISTEN here; a NOTIFY sent inside a transaction arrives when it commits. */
export const deliveriesDueChannel = 'vigil_webhook_deliveries_due';

/** PostgreSQL takes a payload of up to 8,000 bytes; a list longer than this is sent as none. */
const longestPayload = 7000;

/**
 * What a notification says: the webhooks that have new due deliveries, comma-separated, so that a
 * worker claims their rows alone; empty when they are too many to list, and a worker then searches
 * the whole queue (see DeliveryWorker).
 */
export function announcedWebhooks(webhookIds: readonly string[]): string {
  const payload = [...new Set(webhookIds)].join(',');
  return payload.length <= longestPayload ? payload : '';
}

export interface FannedEvent {
  id: string;
  orgId: string;
  event: string;
  at: Date;
}

/**
 * SQL that joins the webhooks (as `w`) of the organization `orgParam` that take events of type
 * `eventParam` or every event (`allParam` holds `allEvents`), active ones only, for the statement
 * that records the event (events/outbox.ts): finding them costs that statement only a join.
 */
export function subscribedWebhooksJoin(orgParam: string, eventParam: string, allParam: string): string {
  return `LEFT JOIN webhooks w ON w.org_id = ${orgParam} AND w.is_active AND (${eventParam} = ANY (w.events) OR ${allParam} = ANY (w.events))`;
}

/**
 * One delivery per webhook that takes the event (`webhookIds`, found when it was recorded), in the
 * event's own transaction: an event and its deliveries are committed together or not at all. The
 * workers are told in the same statement; the NOTIFY arrives when the transaction commits.
 */
export async function queueDeliveries(tx: Queryable, event: FannedEvent, webhookIds: string[]): Promise<void> {
  if (webhookIds.length === 0) return;
  const ids = webhookIds.map(() => newId('delivery', event.at.getTime()));
  await tx.query(
    `WITH queued AS (
       INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status, next_attempt_at, next_trigger, created_at, updated_at)
       SELECT delivery.id, $1, delivery.webhook_id, $2, $3, 'pending', $4, 'scheduled', $4, $4
       FROM unnest($5::text[], $6::text[]) AS delivery (id, webhook_id)
       ON CONFLICT (event_id, webhook_id) DO NOTHING
     )
     SELECT pg_notify($7, $8)`,
    [event.orgId, event.id, event.event, event.at, ids, webhookIds, deliveriesDueChannel, announcedWebhooks(webhookIds)],
  );
}

export async function notifyDeliveriesDue(db: Queryable, webhookId: string): Promise<void> {
  await db.query(`SELECT pg_notify($1, $2)`, [deliveriesDueChannel, announcedWebhooks([webhookId])]);
}
