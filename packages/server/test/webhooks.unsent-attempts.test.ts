import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/platform/clock.js';
import { webhookAttempts } from '../src/platform/metrics.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp, testSecretKey } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type Fault, faultyDb } from './support/webhooks/faulty-db.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

interface Delivery {
  id: string;
  status: string;
  attempts: { number: number; durationMs: number; httpStatus: number | null; error: string | null }[];
}

const claimStatement = /FOR UPDATE OF d SKIP LOCKED/;
const outcomeStatement = /UPDATE webhook_attempts a SET started_at/;

/**
 * A worker that is alive sees the database fail a write for a delivery it holds, on either
 * database. The clock stands still, so no lease ever ends: a delivery that is sent again was
 * given back by its worker, not picked up after its lease.
 */
describe.each(databaseKinds())('deliveries a live worker could not record, on %s', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  const clock = new ManualClock('2026-06-01T12:00:00.000Z');

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startTestApp(kind, { clock, config: { webhookAllowPrivate: true } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** An organization of its own with one webhook on project.created, and `count` projects created: as many deliveries due now. */
  const deliveriesDue = async (name: string, count: number) => {
    const org = await t.createOrg('business');
    const hook = (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name, url: receiver.url(`/${name}`), events: ['project.created'] },
      })
    ).body.data;
    for (let index = 0; index < count; index += 1) await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: `${name} ${index}` } });
    const deliveries = async () => (await t.request<{ data: Delivery[] }>('GET', `webhooks/${hook.id}/deliveries`, { apiKey: org.apiKey })).body.data;
    return { deliveries };
  };
  const unsentCounted = async () => (await webhookAttempts.get()).values.find((value) => value.labels.outcome === 'not_sent')?.value ?? 0;

  /** Runs a worker on a database with `fault` armed for `statement`, until `count` deliveries are delivered; answers them. */
  const deliverThrough = async (name: string, count: number, statement: RegExp, fault: Fault, perWebhookInFlight = 32) => {
    const { deliveries } = await deliveriesDue(name, count);
    const faulty = faultyDb(t.database.db);
    const struck = faulty.next(statement, fault);
    const worker = await DeliveryWorker.start({
      db: faulty.db,
      clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 1000, 1000, 1000, 1000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      leaseMs: 60_000,
      perWebhookInFlight,
      pollIntervalMs: 50,
    });
    try {
      await struck;
      return await waitFor(deliveries, (all) => all.length === count && all.every((delivery) => delivery.status === 'delivered'), 'every delivery delivered');
    } finally {
      await worker.stop();
    }
  };
  const sentOnce = (name: string, count: number) => {
    const ids = receiver.received(`/${name}`).map((request) => String(request.headers['webhook-id']));
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
  };

  // One delivery with every request slot free; three with one slot: the claim starts all three, one to go out at once.
  it.each([
    { name: 'claim-lost', count: 1, slots: 32 },
    { name: 'claim-lost-three', count: 3, slots: 1 },
  ])('the claim that started $count attempt(s) lost its answer: each is not_sent, every delivery is sent once, at once', async ({ name, count, slots }) => {
    const before = await unsentCounted();
    const done = await deliverThrough(name, count, claimStatement, 'answer lost', slots);
    for (const delivery of done) {
      expect(delivery.attempts).toEqual([
        expect.objectContaining({ number: 1, durationMs: 0, httpStatus: null, error: 'not_sent' }),
        expect.objectContaining({ number: 2, httpStatus: 200, error: null }),
      ]);
    }
    expect(await unsentCounted()).toBe(before + count);
    sentOnce(name, count);
  });

  it('the claim was refused: no attempt is listed for it, every delivery is sent once', async () => {
    const done = await deliverThrough('claim-refused', 3, claimStatement, 'refused', 1);
    for (const delivery of done) expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200, error: null })]);
    sentOnce('claim-refused', 3);
  });

  it('the outcome could not be written: it is written when the database answers again, one attempt, sent once', async () => {
    const [delivery] = await deliverThrough('outcome-refused', 1, outcomeStatement, 'refused');
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200, error: null })]);
    sentOnce('outcome-refused', 1);
  });
});
