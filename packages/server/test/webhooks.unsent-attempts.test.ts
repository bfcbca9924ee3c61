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
const startStatement = /RETURNING delivery_id, number/;
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

  it('the claim that started the attempt lost its answer: the attempt is not_sent, the delivery is sent once, at once', async () => {
    const before = await unsentCounted();
    const [delivery] = await deliverThrough('claim-lost', 1, claimStatement, 'answer lost');
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ number: 1, durationMs: 0, httpStatus: null, error: 'not_sent' }),
      expect.objectContaining({ number: 2, httpStatus: 200, error: null }),
    ]);
    expect(await unsentCounted()).toBe(before + 1);
    sentOnce('claim-lost', 1);
  });

  it('the start of a delivery claimed ahead lost its answer: that attempt is not_sent, every delivery is sent once', async () => {
    // One request at a time: the claim starts two of the three deliveries, the third is started on its own later.
    const done = await deliverThrough('start-lost', 3, startStatement, 'answer lost', 1);
    const unsent = done.filter((delivery) => delivery.attempts.some((attempt) => attempt.error === 'not_sent'));
    expect(unsent).toHaveLength(1);
    expect(unsent[0].attempts).toEqual([
      expect.objectContaining({ number: 1, durationMs: 0, error: 'not_sent' }),
      expect.objectContaining({ number: 2, httpStatus: 200, error: null }),
    ]);
    for (const delivery of done.filter((other) => other !== unsent[0])) expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200 })]);
    sentOnce('start-lost', 3);
  });

  it('the start of a delivery claimed ahead was refused: the delivery is given back with no attempt listed, and sent once', async () => {
    const done = await deliverThrough('start-refused', 3, startStatement, 'refused', 1);
    for (const delivery of done) expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200, error: null })]);
    sentOnce('start-refused', 3);
  });

  it('the outcome could not be written: it is written when the database answers again, one attempt, sent once', async () => {
    const [delivery] = await deliverThrough('outcome-refused', 1, outcomeStatement, 'refused');
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, httpStatus: 200, error: null })]);
    sentOnce('outcome-refused', 1);
  });
});
