import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobLoop } from '../src/data/jobs.js';
import { ManualClock } from '../src/platform/clock.js';
import { RetentionSweeper } from '../src/retention.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp, type TestOrg, testConfig, testSecretKey } from './support/app.js';
import { eventually } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';

const day = 24 * 60 * 60 * 1000;

interface Delivery {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: unknown[];
}

interface Export {
  id: string;
  status: string;
}

describe.each(databaseKinds())('retention on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let dataDir: string;
  let projectId: string;
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-retention-'));
    receiver = await Receiver.start();
    receiver.respond = (request) => {
      if (request.path === '/gone') return { status: 410 };
      if (request.path === '/fail') return { status: 500 };
      return { status: 200, body: 'ok' };
    };
    t = await startTestApp(kind, { clock, config: { dataDir, webhookAllowPrivate: true, retentionDays: 30 } });
    org = await t.createOrg('business');
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock,
      // Retries 40 days apart: a failing delivery stays pending through the test.
      config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 40 * day, 40 * day, 40 * day, 40 * day], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
    });
    projectId = (await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Kept' } })).body.data.id;
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const createWebhook = async (hookPath: string) =>
    (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name: `hook ${hookPath}`, url: receiver.url(hookPath), events: ['project.updated'] },
      })
    ).body.data.id;
  const deliveries = async (webhookId: string) =>
    (await t.request<{ data: Delivery[] }>('GET', `webhooks/${webhookId}/deliveries`, { apiKey: org.apiKey })).body.data;
  /** One project.updated event, and the first attempt of each webhook's delivery of it recorded. */
  const emit = async (webhookIds: string[], area: string) => {
    const before = await Promise.all(webhookIds.map(async (id) => (await deliveries(id)).length));
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area } });
    for (const [index, id] of webhookIds.entries()) {
      await eventually(async () => {
        const all = await deliveries(id);
        return all.length === before[index] + 1 && all.every((d) => d.attempts.length > 0) ? true : undefined;
      });
    }
  };
  const exportAlerts = async () => {
    const accepted = await t.request<{ data: Export }>('POST', 'exports', { apiKey: org.apiKey, body: { resource: 'alerts', format: 'csv' } });
    return eventually(async () => {
      const current = (await t.request<{ data: Export }>('GET', `exports/${accepted.body.data.id}`, { apiKey: org.apiKey })).body.data;
      return current.status === 'completed' ? current : undefined;
    });
  };
  const exportFile = (id: string) => path.join(dataDir, 'exports', `${id}.csv`);
  const keyCount = async (key: string) =>
    (await t.database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1', [key]))[0].n;
  const attemptCount = async (deliveryIds: string[]) =>
    (await t.database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ANY ($1::text[])', [deliveryIds]))[0].n;

  it('prunes finished deliveries, exports with their files, settled events and expired idempotency keys past the period, in batches, and keeps the rest', async () => {
    const jobs = await startJobLoop([t.app.services.exports], { db: t.database.db, idleMs: 20, onError: (_runner, error) => console.error(error) });
    // Day 0: one delivery delivered, one failed for good (410), one failing and still pending; an export; an idempotent POST.
    const ok = await createWebhook('/ok');
    const gone = await createWebhook('/gone');
    const failing = await createWebhook('/fail');
    await emit([ok, gone, failing], 'day 0');
    const [oldDelivered] = await deliveries(ok);
    const [oldFailed] = await deliveries(gone);
    const [oldPending] = await deliveries(failing);
    expect([oldDelivered.status, oldFailed.status, oldPending.status]).toEqual(['delivered', 'failed', 'pending']);
    const oldExport = await exportAlerts();
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title: 'old', severity: 'low' }, headers: { 'idempotency-key': 'old-key' } });

    // Day 20: another delivery and export.
    clock.advance(20 * day);
    await emit([ok], 'day 20');
    const recentDelivered = (await deliveries(ok)).find((d) => d.id !== oldDelivered.id)!;
    const recentExport = await exportAlerts();
    await jobs.stop();

    // Day 31: a new idempotent POST; the old key expired on day 1.
    clock.advance(11 * day);
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, title: 'new', severity: 'low' }, headers: { 'idempotency-key': 'new-key' } });
    expect(await attemptCount([oldDelivered.id, oldFailed.id])).toBe(2);

    const cutoff = new Date(clock.now().getTime() - 30 * day);
    const eventsBefore = async (before: boolean) =>
      (await t.database.db.query<{ id: string }>(`SELECT id FROM events WHERE (created_at < $1) = $2 ORDER BY id`, [cutoff, before])).map((row) => row.id);
    const [{ eventId: pendingEventId }] = await t.database.db.query<{ eventId: string }>('SELECT event_id AS "eventId" FROM webhook_deliveries WHERE id = $1', [
      oldPending.id,
    ]);
    expect((await eventsBefore(true)).length).toBeGreaterThan(2);
    const recentEvents = await eventsBefore(false);
    expect(recentEvents.length).toBeGreaterThan(0);

    const context = { db: t.database.db, clock, config: testConfig({ dataDir, retentionDays: 30 }) };
    const sweeper = new RetentionSweeper(context, t.app.services.exports, { batchSize: 1, pauseMs: 0 });
    const first = await sweeper.pruneBatch();
    expect(first).toEqual({ deliveries: 1, exports: 1, idempotencyKeys: 1, events: 1 });
    while (await sweeper.runNext());

    expect((await deliveries(ok)).map((d) => d.id)).toEqual([recentDelivered.id]);
    expect(await deliveries(gone)).toEqual([]);
    const stillFailing = await deliveries(failing);
    expect(stillFailing.map((d) => d.id)).toContain(oldPending.id);
    expect(stillFailing.every((d) => d.status === 'pending')).toBe(true);
    expect(await attemptCount([oldDelivered.id, oldFailed.id])).toBe(0);
    expect((await t.request('GET', `exports/${oldExport.id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect(existsSync(exportFile(oldExport.id))).toBe(false);
    expect((await t.request('GET', `exports/${recentExport.id}`, { apiKey: org.apiKey })).status).toBe(200);
    expect(existsSync(exportFile(recentExport.id))).toBe(true);
    expect(await keyCount('old-key')).toBe(0);
    expect(await keyCount('new-key')).toBe(1);
    // Of the old events only the one a pending delivery still sends is left; recent ones all stay.
    expect(await eventsBefore(true)).toEqual([pendingEventId]);
    expect(await eventsBefore(false)).toEqual(recentEvents);
  });
});
