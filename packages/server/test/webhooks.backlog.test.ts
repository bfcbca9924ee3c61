import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { aheadFactor, DeliveryWorker, defaultPerWebhookInFlight } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp, testSecretKey } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type CountedDb, countStatements } from './support/statement-count.js';
import { queueDueDeliveries } from './support/webhooks/due-deliveries.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

const backlog = 300;
const perWebhookInFlight = 2;

/**
 * One webhook with a backlog far beyond what a worker holds for it: the worker refills it from its
 * own rows as rounds of its attempts end, and searches the whole queue (passing over that backlog)
 * only when something is announced; a delivery for another webhook announced meanwhile goes out at once.
 */
describe.each(databaseKinds())('a webhook with a backlog on %s', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  let counted: CountedDb;

  beforeAll(async () => {
    receiver = await Receiver.start();
    receiver.respond = () => ({ status: 200, body: 'ok', delayMs: 5 });
    t = await startTestApp(kind, { config: { webhookAllowPrivate: true } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const createWebhook = async (apiKey: string, path: string, events: string[]) =>
    (await t.request<{ data: { id: string } }>('POST', 'webhooks', { apiKey, body: { name: path, url: receiver.url(path), events } })).body.data;
  const claims = (refills: boolean) =>
    counted.statements.filter((sql) => sql.includes('FOR UPDATE OF d SKIP LOCKED') && sql.includes('unnest($14::text[]') === refills).length;

  const queueBacklog = (orgId: string, webhookId: string, prefix: string, count: number) =>
    queueDueDeliveries(t.database.db, { orgId, webhookId, prefix, count, event: 'project.updated' });
  /** A worker that polls too seldom to matter here: what it finds, it finds by its searches and refills. */
  const startWorker = (options: { maxInFlight?: number; perWebhookInFlight?: number } = {}) => {
    counted = countStatements(t.database.db);
    return DeliveryWorker.start({
      db: counted.db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 60_000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      perWebhookInFlight,
      pollIntervalMs: 600_000,
      ...options,
    });
  };

  it('refills it from its own rows, searching only when something is announced', async () => {
    const org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const busy = await createWebhook(org.apiKey, '/busy', ['project.updated']);
    await queueBacklog(org.orgId, busy.id, 'busy', backlog);
    await createWebhook(org.apiKey, '/other', ['project.created']);
    const worker = await startWorker();
    try {
      await waitFor(() => receiver.received('/busy'), (received) => received.length >= 10, 'the backlog to be under way');
      const created = await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Announced' } });
      expect(created.status).toBe(201);
      await waitFor(() => receiver.received('/other'), (received) => received.length === 1, 'the other webhook’s delivery');
      // It went out while the backlog was still being sent, not after it.
      expect(receiver.received('/busy').length).toBeLessThan(backlog);

      await waitFor(() => receiver.received('/busy'), (received) => received.length === backlog, 'the whole backlog');
      await worker.idle();
      const ids = receiver.received('/busy').map((request) => request.headers['webhook-id']);
      expect(new Set(ids).size).toBe(backlog);
      const [{ delivered }] = await t.database.db.query<{ delivered: number }>(
        `SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`,
        [busy.id],
      );
      expect(delivered).toBe(backlog);
      // Searches: the first ones (until one finds nothing), those the new project's notification asks
      // for, and those of other suites' notifications on a shared PostgreSQL (the channel is the
      // database's). Every other claim refilled the busy webhook, each with at most what the worker
      // may hold of it; before, each attempt's end searched.
      expect(claims(false)).toBeLessThan(backlog / 5);
      expect(claims(true)).toBeGreaterThanOrEqual(backlog / (perWebhookInFlight * aheadFactor));
    } finally {
      await worker.stop();
    }
  });

  it('claims the rows of the webhooks a notification names without searching the queue', async () => {
    const org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    await createWebhook(org.apiKey, '/named', ['project.created']);
    const worker = await startWorker();
    try {
      await worker.idle();
      counted.clear();
      const created = await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Named' } });
      expect(created.status).toBe(201);
      await waitFor(() => receiver.received('/named'), (received) => received.length === 1, 'the named webhook’s delivery');
      // A search probes every webhook with rows queued; the notification's webhook is claimed alone.
      expect(claims(false)).toBe(0);
      expect(claims(true)).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.stop();
    }
  });

  it('keeps refilling backlogs when its own limit cuts a refill short', async () => {
    const org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const first = await createWebhook(org.apiKey, '/first', ['project.updated']);
    const second = await createWebhook(org.apiKey, '/second', ['project.updated']);
    await queueBacklog(org.orgId, first.id, 'first', 60);
    await queueBacklog(org.orgId, second.id, 'second', 60);
    // Room for both webhooks' limits (aheadFactor × 2 each) and one more: a refill for both often
    // takes only what the worker has room for, outcomes still being written.
    const worker = await startWorker({ maxInFlight: 2 * aheadFactor * perWebhookInFlight + 1 });
    try {
      await waitFor(() => receiver.received('/first').length + receiver.received('/second').length, (sent) => sent === 120, 'both backlogs');
    } finally {
      await worker.stop();
    }
  });

  it("claims another webhook's delivery at once while two webhooks hold all they may, their endpoints hanging", async () => {
    const org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const hanging = [await createWebhook(org.apiKey, '/hanging-a', ['project.updated']), await createWebhook(org.apiKey, '/hanging-b', ['project.updated'])];
    for (const [index, webhook] of hanging.entries()) await queueBacklog(org.orgId, webhook.id, `hanging${index}`, 150);
    await createWebhook(org.apiKey, '/other', ['project.created']);
    receiver.respond = (request) => ({ status: 200, body: 'ok', delayMs: request.path.startsWith('/hanging') ? 3000 : 5 });
    // The default per-webhook limit and the worker's default room in all.
    const worker = await startWorker({ perWebhookInFlight: defaultPerWebhookInFlight });
    try {
      const held = () =>
        t.database.db.query<{ held: number }>('SELECT count(*)::int AS held FROM webhook_deliveries WHERE webhook_id = ANY ($1) AND lease_token IS NOT NULL', [
          hanging.map((webhook) => webhook.id),
        ]);
      await waitFor(held, ([{ held: count }]) => count === 2 * defaultPerWebhookInFlight * aheadFactor, 'both webhooks to hold all they may');
      const created = await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Meanwhile' } });
      expect(created.status).toBe(201);
      await waitFor(() => receiver.received('/other'), (received) => received.length === 1, 'the other webhook’s delivery');
      // Sent before any hanging request was answered: no second round of either has gone out.
      expect(receiver.received('/hanging-a').length + receiver.received('/hanging-b').length).toBeLessThanOrEqual(2 * defaultPerWebhookInFlight);
    } finally {
      await worker.stop();
      receiver.respond = () => ({ status: 200, body: 'ok', delayMs: 5 });
    }
  });
});
