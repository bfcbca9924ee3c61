import type { Queryable } from '../db/connect.js';
import { allEvents } from '../events/catalog.js';
import { newId } from '../platform/ids.js';

/** Workers LISTEN here; a NOTIFY sent inside a transaction arrives when it commits. */
export const deliveriesDueChannel = 'vigil_webhook_deliveries_due';

export interface FannedEvent {
  id: string;
  orgId: string;
  event: string;
  at: Date;
}

/**
 * One delivery per active webhook of the organization that subscribes to the event, in the
 * event's own transaction: an event and its deliveries are committed together or not at all.
 */
export async function fanOutEvent(tx: Queryable, event: FannedEvent): Promise<number> {
  const hooks = await tx.query<{ id: string }>(
    `SELECT id FROM webhooks WHERE org_id = $1 AND is_active AND ($2 = ANY (events) OR $3 = ANY (events)) ORDER BY id`,
    [event.orgId, event.event, allEvents],
  );
  if (hooks.length === 0) return 0;
  const ids = hooks.map(() => newId('delivery', event.at.getTime()));
  await tx.query(
    `INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status, next_attempt_at, next_trigger, created_at, updated_at)
     SELECT delivery.id, $1, delivery.webhook_id, $2, $3, 'pending', $4, 'scheduled', $4, $4
     FROM unnest($5::text[], $6::text[]) AS delivery (id, webhook_id)
     ON CONFLICT (event_id, webhook_id) DO NOTHING`,
    [event.orgId, event.id, event.event, event.at, ids, hooks.map((hook) => hook.id)],
  );
  await notifyDeliveriesDue(tx);
  return hooks.length;
}

export async function notifyDeliveriesDue(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify($1, '')`, [deliveriesDueChannel]);
}
