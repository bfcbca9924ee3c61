import type { Queryable } from '../../db/connect.js';
import { recordEvent } from '../../events/outbox.js';
import type { Clock } from '../../platform/clock.js';
import type { Webhook } from './schema.js';
import { failPendingDeliveries, toWebhook, updateWebhook } from './store.js';

/**
 * Disables an active webhook in the caller's transaction and announces it with `webhook.disabled`.
 * Used by PATCH, by the worker on 410 Gone, and by the five-day auto-disable. Returns undefined
 * when the webhook is gone or already disabled, so a race between two of them emits one event.
 */
export async function disableWebhook(tx: Queryable, clock: Clock, orgId: string, id: string, reason: string): Promise<Webhook | undefined> {
  const at = clock.now();
  const [active] = await tx.query<{ id: string }>(`SELECT id FROM webhooks WHERE org_id = $1 AND id = $2 AND is_active FOR UPDATE`, [orgId, id]);
  if (!active) return undefined;
  const row = await updateWebhook(tx, orgId, id, { is_active: false, disabled_reason: reason, updated_at: at });
  if (!row) return undefined;
  await failPendingDeliveries(tx, id, at);
  const webhook = toWebhook(row);
  await recordEvent(tx, clock, orgId, 'webhook.disabled', webhook);
  return webhook;
}
