import type { Db } from '../db/connect.js';
import { disableWebhook } from '../modules/webhooks/disable.js';
import type { Clock } from '../platform/clock.js';

/** A webhook whose deliveries have all failed for this long is disabled. */
const autoDisableAfterMs = 5 * 24 * 60 * 60 * 1000;

/**
 * Disables every active webhook that has been failing (no successful attempt) for five days and
 * has at least one delivery that failed for good, each with `webhook.disabled` and its reason.
 */
export async function disableFailingWebhooks(db: Db, clock: Clock): Promise<string[]> {
  const cutoff = new Date(clock.now().getTime() - autoDisableAfterMs);
  const candidates = await db.query<{ id: string; org_id: string; failing_since: Date }>(
    `SELECT id, org_id, failing_since FROM webhooks w
     WHERE is_active AND failing_since <= $1
       AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'failed')`,
    [cutoff],
  );
  const disabled: string[] = [];
  for (const hook of candidates) {
    const reason = `Every delivery has failed since ${hook.failing_since.toISOString()} (5 days or more); re-enable it with PATCH {"isActive": true}.`;
    const webhook = await db.transaction(async (tx) => {
      // A success may have landed since the candidates were read: it clears failing_since.
      const [still] = await tx.query(`SELECT 1 FROM webhooks WHERE id = $1 AND failing_since <= $2 FOR UPDATE`, [hook.id, cutoff]);
      return still ? disableWebhook(tx, clock, hook.org_id, hook.id, reason) : undefined;
    });
    if (webhook) disabled.push(webhook.id);
  }
  return disabled;
}
