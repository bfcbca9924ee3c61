import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Webhook } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

export interface WebhookRow {
  id: string;
  org_id: string;
  name: string;
  url: string;
  events: string[];
  is_active: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  name: row.name,
  url: row.url,
  events: row.events,
  isActive: row.is_active,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
  disabledReason: row.disabled_reason,
});

export interface NewWebhook {
  id: string;
  orgId: string;
  name: string;
  url: string;
  events: string[];
  secretSealed: string;
  at: Date;
}

export async function insertWebhook(db: Queryable, hook: NewWebhook): Promise<WebhookRow> {
  const [row] = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, org_id, name, url, events, is_active, secret_sealed, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, true, $6, $7, $7) RETURNING *`,
    [hook.id, hook.orgId, hook.name, hook.url, hook.events, hook.secretSealed, hook.at],
  );
  return row;
}

export async function findWebhook(db: Queryable, orgId: string, id: string, forUpdate = false): Promise<WebhookRow | undefined> {
  const [row] = await db.query<WebhookRow>(
    `SELECT * FROM webhooks WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return row;
}

export async function listWebhooks(db: Queryable, orgId: string, window: PageWindow): Promise<WebhookRow[]> {
  return selectPage<WebhookRow>(db, { from: 'webhooks', orgId, window });
}

/** Column names are the table's; undefined values stay as they are. */
export type WebhookChanges = Partial<Omit<WebhookRow, 'id' | 'org_id' | 'created_at'>> & { updated_at: Date };

export async function updateWebhook(db: Queryable, orgId: string, id: string, changes: WebhookChanges): Promise<WebhookRow | undefined> {
  return updateOwnedRow<WebhookRow>(db, 'webhooks', orgId, id, changes);
}

export async function deleteWebhook(db: Queryable, orgId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db.query<WebhookRow>(`DELETE FROM webhooks WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id]);
  return row;
}

/** Pending deliveries of a webhook that stops receiving end as failed; `recover` can send them later. */
export async function failPendingDeliveries(db: Queryable, webhookId: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, next_trigger = NULL, updated_at = $2
     WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId, at],
  );
}
