import type { Queryable } from '../../../src/db/connect.js';

export interface DueDeliveries {
  orgId: string;
  webhookId: string;
  /** Makes the ids of the events and deliveries, `evt_<prefix><n>` and `dlv_<prefix><n>`. */
  prefix: string;
  count: number;
  event: string;
}

/**
 * `count` deliveries due for the webhook (since a minute ago), each with its event, written
 * directly in two statements: no fan-out and no notification, so a worker finds them by searching.
 */
export async function queueDueDeliveries(db: Queryable, due: DueDeliveries): Promise<void> {
  await db.query(
    `INSERT INTO events (id, org_id, type, data, created_at)
     SELECT 'evt_' || $3 || n, $1, $4, '{}'::jsonb, now() FROM generate_series(1, $2::int) AS n`,
    [due.orgId, due.count, due.prefix, due.event],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status, next_attempt_at, created_at, updated_at)
     SELECT 'dlv_' || $4 || n, $1, $2, 'evt_' || $4 || n, $5, 'pending', now() - interval '1 minute', now(), now()
     FROM generate_series(1, $3::int) AS n`,
    [due.orgId, due.webhookId, due.count, due.prefix, due.event],
  );
}
