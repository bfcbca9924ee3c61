import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../packages/server/src/db/connect.js';
import { recordEvent } from '../../packages/server/src/events/outbox.js';
import { OrganizationService } from '../../packages/server/src/modules/organizations/service.js';
import { WebhookService } from '../../packages/server/src/modules/webhooks/service.js';
import { systemClock } from '../../packages/server/src/platform/clock.js';
import type { ServiceContext } from '../../packages/server/src/platform/context.js';
import type { DeliveryWorker } from '../../packages/server/src/webhooks/worker.js';
import { queueDueDeliveries } from '../../packages/server/test/support/webhooks/due-deliveries.js';
import { postgresCpuMicros, postgresCpuMicrosSince } from './postgres-cpu.js';

/** The receiver (support/webhook-receiver.ts) answers this path after 50 ms, every other one at once. */
export const slowPath = '/slow';

export interface BacklogSize {
  backlog: number;
  eventsPerSecond: number;
  seconds: number;
  /** How long the worker sends the backlog alone first. */
  warmUpSeconds: number;
}

export interface BacklogBeside {
  /** Share of one core PostgreSQL's processes used while the other organization's events came. */
  postgresShare: number;
  events: number;
  /** From each of the other organization's events committing to the start of its first attempt. */
  p50Ms: number;
  p99Ms: number;
}

/** Waits until `count` deliveries of the webhook are delivered. */
export async function waitUntilDelivered(db: Db, webhookId: string, count: number): Promise<void> {
  for (;;) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [
      webhookId,
    ]);
    if (row.n >= count) return;
    // The count reads every delivery of the webhook; asked every 20 ms it took a measurable share of
    // the database's CPU from the worker being measured. A 250 ms poll adds at most 1 % to a 25 s run.
    await sleep(250);
  }
}

/**
 * What one organization's backlog costs another's deliveries: organization A's webhook has
 * `backlog` deliveries due on a receiver that takes 50 ms (so the worker holds it at its limit for
 * the whole run), while organization B records events at a steady rate for its own webhook on a
 * receiver that answers at once. Until the afternoon of 2026-11-29 every one of B's events made
 * the worker search past A's whole backlog (BENCHMARKS.md).
 */
export async function backlogBesideEvents(
  ctx: ServiceContext,
  receiverOrigin: string,
  startWorker: () => Promise<DeliveryWorker>,
  size: BacklogSize,
): Promise<BacklogBeside> {
  const organizations = new OrganizationService(ctx);
  const webhooks = new WebhookService(ctx);
  const busy = (await organizations.create({ name: 'Backlog', plan: 'enterprise' })).org;
  const slow = await webhooks.create(busy.id, { name: 'slow', url: `${receiverOrigin}${slowPath}`, events: ['project.deleted'] });
  const other = (await organizations.create({ name: 'Neighbour', plan: 'enterprise' })).org;
  const fast = await webhooks.create(other.id, { name: 'fast', url: `${receiverOrigin}/neighbour`, events: ['project.updated'] });
  await queueDueDeliveries(ctx.db, { orgId: busy.id, webhookId: slow.id, prefix: 'backlog', count: size.backlog, event: 'project.deleted' });
  await ctx.db.exec('ANALYZE webhooks, events, webhook_deliveries, webhook_attempts');
  const worker = await startWorker();
  try {
    await sleep(size.warmUpSeconds * 1000);
    const postgresBefore = postgresCpuMicros();
    const started = performance.now();
    let events = 0;
    const at = systemClock.now().toISOString();
    while (performance.now() - started < size.seconds * 1000) {
      const project = { id: 'proj_neighbour', name: 'Neighbour', area: null, description: null, createdAt: at, updatedAt: at };
      await ctx.db.transaction((tx) => recordEvent(tx, systemClock, other.id, 'project.updated', project));
      events += 1;
      await sleep(1000 / size.eventsPerSecond);
    }
    await waitUntilDelivered(ctx.db, fast.id, events);
    const postgresShare = postgresCpuMicrosSince(postgresBefore) / ((performance.now() - started) * 1000);
    const [waits] = await ctx.db.query<{ p50: number; p99: number }>(
      `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY wait) AS p50, percentile_disc(0.99) WITHIN GROUP (ORDER BY wait) AS p99
       FROM (SELECT extract(epoch FROM a.started_at - e.created_at) * 1000 AS wait FROM webhook_attempts a
             JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
             WHERE d.webhook_id = $1 AND a.number = 1) AS first_attempts`,
      [fast.id],
    );
    return { postgresShare, events, p50Ms: waits.p50, p99Ms: waits.p99 };
  } finally {
    await worker.stop();
  }
}
