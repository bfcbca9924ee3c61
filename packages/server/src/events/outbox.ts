import type { Queryable } from '../db/connect.js';
import { type Rider, riderCte } from '../db/rider.js';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import { queueDeliveries, subscribedWebhooksJoin } from '../webhooks/fan-out.js';
import { announcementOf, committedEventsChannel } from './committed.js';
import { allEvents, type EventData, type EventName } from './catalog.js';
import { isoTimestamp } from '../db/timestamps.js';

export interface RecordedEvent<E extends EventName = EventName> {
  id: string;
  orgId: string;
  event: E;
  timestamp: string;
  data: EventData<E>;
}

/**
 * Writes the event in the caller's transaction, so it exists exactly when the change it
 * describes was committed: a rolled-back change leaves no event behind. The webhook deliveries
 * it causes are queued in the same transaction.
 */
export async function recordEvent<E extends EventName>(
  tx: Queryable,
  clock: Clock,
  orgId: string,
  event: E,
  data: EventData<E>,
  /** Who caused it (a user's id for a console session, a key's id for an API key), when known. */
  actorId: string | null = null,
  /** A write to send with the event's statement, unless one was sent already (see `Rider`). */
  rider?: Rider,
): Promise<RecordedEvent<E>> {
  const at = clock.now();
  const id = newId('event', at.getTime());
  const recorded = { id, orgId, event, timestamp: isoTimestamp(at), data };
  const params = [id, orgId, event, data, at, actorId, committedEventsChannel, announcementOf(recorded), allEvents];
  const riding = rider !== undefined && !rider.sent ? rider : undefined;
  // One statement: the event, its announcement (delivered on commit) and the webhooks that take it.
  const subscribers = await tx.query<{ webhook_id: string | null }>(
    `WITH recorded AS (
       INSERT INTO events (id, org_id, type, data, created_at, actor_id) VALUES ($1, $2, $3, $4, $5, $6)
     )${riding ? `, ${riderCte(riding, params.length)}` : ''}
     SELECT w.id AS webhook_id
     FROM (SELECT pg_notify($7, $8)) AS announced
     ${subscribedWebhooksJoin('$2', '$3', '$9')}
     ORDER BY w.id`,
    riding ? [...params, ...riding.params] : params,
  );
  if (riding) riding.sent = true;
  const webhookIds = subscribers.flatMap((row) => (row.webhook_id === null ? [] : [row.webhook_id]));
  await queueDeliveries(tx, { id, orgId, event, at }, webhookIds);
  return recorded;
}

/**
 * Deletes up to `limit` events recorded before `before` that no webhook delivery refers to any
 * more (deliveries read their event back to send it; a delete would take them with it). Nothing
 * adds a delivery to an old event: deliveries are made in the event's own transaction.
 */
export async function deleteSettledEvents(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM events WHERE id IN (
       SELECT e.id FROM events e
       WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
       LIMIT $2 FOR UPDATE SKIP LOCKED
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
