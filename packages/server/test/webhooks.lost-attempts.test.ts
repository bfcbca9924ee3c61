import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/platform/clock.js';
import { webhookAttempts } from '../src/platform/metrics.js';
import { type ClaimRequest, claimDueDeliveries, startAttempts } from '../src/webhooks/queue.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

interface Delivery {
  id: string;
  status: string;
  attempts: { number: number; startedAt: string; durationMs: number; httpStatus: number | null; error: string | null }[];
}

const leaseMs = 60_000;

/**
 * A worker that dies mid-attempt, on either database: what it had written before sending (the
 * claim and the started attempt) is written here as it would have, then it is gone. (The same with
 * a real worker process killed with SIGKILL is in webhooks.durability.test.ts, on PostgreSQL.)
 */
describe.each(databaseKinds())('attempts lost with their worker on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let receiver: Receiver;
  const clock = new ManualClock('2026-06-01T12:00:00.000Z');

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startTestApp(kind, { clock, config: { webhookAllowPrivate: true } });
  });
  // Each test has an organization of its own: its project events reach only its own webhook.
  beforeEach(async () => {
    org = await t.createOrg('business');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const startWorker = () =>
    DeliveryWorker.start({
      db: t.database.db,
      clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 1000, 1000, 1000, 1000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      leaseMs,
      pollIntervalMs: 50,
    });
  /** A webhook for project.created, and one project created: one delivery due now. */
  const webhookWithDelivery = async (name: string) => {
    const hook = (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name, url: receiver.url(`/${name}`), events: ['project.created'] },
      })
    ).body.data;
    await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name } });
    return hook;
  };
  /**
   * A claim takes due deliveries of every organization: the other tests' webhooks count as full,
   * so that only this one's delivery is claimed.
   */
  const othersFull = async (webhookId: string) =>
    new Map((await t.database.db.query<{ id: string }>('SELECT id FROM webhooks WHERE id <> $1', [webhookId])).map((other) => [other.id, 10]));
  /** vigil_webhook_attempts_total{outcome="worker_lost"}, as /metrics shows it. */
  const lostAttemptsCounted = async () =>
    (await webhookAttempts.get()).values.find((value) => value.labels.outcome === 'worker_lost')?.value ?? 0;
  const deliveries = async (webhookId: string) =>
    (await t.request<{ data: Delivery[] }>('GET', `webhooks/${webhookId}/deliveries`, { apiKey: org.apiKey })).body.data;

  /** The two ways a worker writes an attempt's start: in its own statement, or in the claim (deliveries that go out at once). */
  const startWays = {
    'in its own statement': async (claim: ClaimRequest) => {
      const [claimed] = await claimDueDeliveries(t.database.db, claim);
      expect(claimed.startedAttempt).toBeUndefined();
      const started = await startAttempts(t.database.db, [{ deliveryId: claimed.id, token: claim.token, trigger: 'scheduled' }], claim.now, claim.leaseUntil);
      return { id: claimed.id, number: started.get(claimed.id) };
    },
    'in the claim': async (claim: ClaimRequest) => {
      const [claimed] = await claimDueDeliveries(t.database.db, {
        ...claim,
        startAtOnce: { limit: 10, handlingByWebhook: new Map(), firstAttemptDelayMs: 0 },
      });
      return { id: claimed.id, number: claimed.startedAttempt };
    },
  };

  it.each(Object.keys(startWays) as (keyof typeof startWays)[])(
    'lists the lost attempt as worker_lost once its lease has ended, before the attempt that follows (start written %s)',
    async (way) => {
      const name = way === 'in the claim' ? 'lost-claimed' : 'lost';
      const hook = await webhookWithDelivery(name);

      const diedAt = clock.now();
      const leaseUntil = new Date(diedAt.getTime() + leaseMs);
      const claimed = await startWays[way]({ now: diedAt, leaseUntil, token: `dead.${name}`, limit: 10, perWebhook: 10, inFlightByWebhook: await othersFull(hook.id) });
      expect(claimed.number).toBe(1);
      // While the lease runs nobody knows the outcome: the attempt is not listed yet, and nothing is due.
      const during = await deliveries(hook.id);
      expect(during).toMatchObject([{ id: claimed.id, status: 'pending', attempts: [] }]);

      const lostBefore = await lostAttemptsCounted();
      // The lease ends before a worker starts, so that no attempt this worker makes outlives its own lease on the fake clock.
      clock.advance(leaseMs + 1000);
      const worker = await startWorker();
      try {
        const [done] = await waitFor(() => deliveries(hook.id), (all) => all[0]?.status === 'delivered', 'the delivery after the lease');
        expect(await lostAttemptsCounted()).toBe(lostBefore + 1);
        expect(done.attempts).toEqual([
          expect.objectContaining({ number: 1, startedAt: diedAt.toISOString(), durationMs: leaseMs, httpStatus: null, error: 'worker_lost' }),
          expect.objectContaining({ number: 2, httpStatus: 200, error: null }),
        ]);
        expect(receiver.received(`/${name}`)).toHaveLength(1);
      } finally {
        await worker.stop();
      }
    },
  );

  it('does not send a delivery that another worker took over after its lease ended', async () => {
    const hook = await webhookWithDelivery('taken');
    const now = clock.now();
    const others = await othersFull(hook.id);
    const claim = (token: string, at: Date) =>
      claimDueDeliveries(t.database.db, { now: at, leaseUntil: new Date(at.getTime() + leaseMs), token, limit: 10, perWebhook: 10, inFlightByWebhook: others });
    const [slow] = await claim('slow.1', now);
    const later = new Date(now.getTime() + leaseMs + 1000);
    const [taken] = await claim('quick.1', later);
    expect(taken.id).toBe(slow.id);
    // The first worker, late, tries to start its attempt: it gets no number, so it sends nothing.
    const started = await startAttempts(t.database.db, [{ deliveryId: slow.id, token: 'slow.1', trigger: 'scheduled' }], later, new Date(later.getTime() + leaseMs));
    expect(started.size).toBe(0);
    expect((await deliveries(hook.id))[0].attempts).toEqual([]);
  });
});
