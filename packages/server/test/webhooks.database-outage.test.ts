import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { testSecretKey } from './support/app.js';
import { postgresBinDir } from './support/postgres-server.js';
import { type PrivateServerApp, startAppOnPrivateServer } from './support/private-server-app.js';
import { call } from './support/processes.js';
import { type Fault, faultyDb } from './support/webhooks/faulty-db.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

interface Delivery {
  id: string;
  status: string;
  attempts: { number: number; durationMs: number; httpStatus: number | null; error: string | null }[];
}

/** As long as the lease that would otherwise hold the delivery; it is sent again well within this. */
const leaseMs = 60_000;
/** How long the server stays stopped: the worker's writes fail for real meanwhile, more than once. */
const outageMs = 1500;

/**
 * A PostgreSQL server of the test's own, stopped while a worker holds a delivery: between the
 * claim and the outcome, then started again. The worker is alive throughout.
 */
describe.runIf(postgresBinDir !== undefined || needs('postgres-server', 'a private PostgreSQL server'))('webhook deliveries across a PostgreSQL outage', () => {
  let outage: PrivateServerApp;
  let receiver: Receiver;

  beforeAll(async () => {
    outage = await startAppOnPrivateServer({ connectTimeoutMs: 500, statementTimeoutMs: 1000 });
    receiver = await Receiver.start();
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await outage?.close();
  });

  /** An organization of its own with a webhook on alert.created, and one alert: one delivery due now. */
  const deliveryDue = async (name: string) => {
    const { app, baseUrl } = outage;
    const { apiKey } = await app.services.organizations.create({ name, plan: 'business', adminEmail: 'ops@example.com' });
    const project = (await call(baseUrl, 'POST', 'projects', { apiKey, body: { name } })).body.data as { id: string };
    const hook = (await call(baseUrl, 'POST', 'webhooks', { apiKey, body: { name, url: receiver.url(`/${name}`), events: ['alert.created'] } })).body.data as { id: string };
    expect((await call(baseUrl, 'POST', 'alerts', { apiKey, body: { projectId: project.id, title: name, severity: 'high' } })).status).toBe(201);
    return async () => ((await call(baseUrl, 'GET', `webhooks/${hook.id}/deliveries`, { apiKey })).body as { data?: Delivery[] }).data ?? [];
  };

  /** Stops the server where `fault` strikes `statement`, starts it again `outageMs` later; answers the delivery once delivered. */
  const deliverAcrossOutage = async (name: string, statement: RegExp, fault: Fault) => {
    const { server, db } = outage;
    const deliveries = await deliveryDue(name);
    const faulty = faultyDb(db);
    const struck = faulty.next(statement, fault, () => server.stop());
    const worker = await DeliveryWorker.start({
      db: faulty.db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 60_000, 60_000, 60_000, 60_000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      leaseMs,
      pollIntervalMs: 600_000,
      sweepIntervalMs: 600_000,
    });
    try {
      await struck;
      await sleep(outageMs);
      await server.start();
      // A fifth of the lease: only a delivery its worker gave back (or recorded) is done by then.
      const [delivery] = await waitFor(deliveries, (all) => all[0]?.status === 'delivered', 'the delivery after the database came back', leaseMs / 5);
      const leases = await db.query<{ leased: number; open: number }>(
        `SELECT count(*) FILTER (WHERE d.leased_until IS NOT NULL)::int AS leased, count(*) FILTER (WHERE a.lease_token IS NOT NULL)::int AS open
         FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.id = $1`,
        [delivery.id],
      );
      expect(leases).toEqual([{ leased: 0, open: 0 }]);
      const sent = receiver.received(`/${name}`);
      expect(sent.map((request) => request.headers['webhook-id'])).toEqual([delivery.id]);
      return delivery;
    } finally {
      await worker.stop();
    }
  };

  it('stopped after the request went out and before its outcome was written: the outcome is written once it is back, one attempt', async () => {
    const delivery = await deliverAcrossOutage('outcome-cut', /UPDATE webhook_attempts a SET started_at/, 'as it is');
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200, error: null })]);
  });

  it('stopped as the claim that started the attempt committed, its answer lost: the attempt is not_sent and the delivery sent once it is back', async () => {
    const delivery = await deliverAcrossOutage('claim-cut', /FOR UPDATE OF d SKIP LOCKED/, 'answer lost');
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ number: 1, durationMs: 0, httpStatus: null, error: 'not_sent' }),
      expect.objectContaining({ number: 2, httpStatus: 200, error: null }),
    ]);
    expect(receiver.maxConcurrentPerDelivery).toBe(1);
  });
});
