import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { Receiver, type ReceiverOptions } from './support/webhooks/receiver.js';
import { badCertificates, testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

interface Attempt {
  number: number;
  httpStatus: number | null;
  error: string | null;
  errorDetail: string | null;
}

interface Delivery {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Attempt[];
}

const minute = 60_000;

/** How the sender's connections meet real receivers: ones that close idle connections early, and ones with bad certificates. */
describe.each(databaseKinds())('webhook connections on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let worker: DeliveryWorker;
  let projectId: string;
  const receivers: Receiver[] = [];
  // The clock stands still: a failed attempt's retry (a minute later) never comes, so only first attempts are seen.
  const clock = new ManualClock('2026-05-01T08:00:00.000Z');

  beforeAll(async () => {
    t = await startTestApp(kind, { clock, config: { webhookAllowPrivate: true } });
    org = await t.createOrg('business');
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, minute, minute, minute, minute], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
    });
    projectId = (await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Connections' } })).body.data.id;
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    for (const receiver of receivers) await receiver.close();
  });

  const startReceiver = async (options: ReceiverOptions) => {
    const receiver = await Receiver.start(options);
    receivers.push(receiver);
    return receiver;
  };
  const createWebhook = async (url: string) => {
    const response = await t.request<{ data: { id: string } }>('POST', 'webhooks', {
      apiKey: org.apiKey,
      body: { name: `hook ${url}`, url, events: ['project.updated'] },
    });
    expect(response.status).toBe(201);
    return response.body.data;
  };
  const deliveries = async (webhookId: string) =>
    (await t.request<{ data: Delivery[] }>('GET', `webhooks/${webhookId}/deliveries`, { apiKey: org.apiKey })).body.data;
  const emit = (area: string) => t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area } });
  /** Emits one event and waits until its delivery's first attempt is recorded. */
  const deliverOne = async (webhookId: string, count: number) => {
    await emit(`area ${webhookId} ${count}`);
    return waitFor(() => deliveries(webhookId), (all) => all.length === count && all.every((d) => d.attempts.length > 0), `attempt of delivery ${count}`);
  };

  it('sends again at once on a new connection when the receiver closes a kept-alive one under the request: every first attempt succeeds', async () => {
    const receiver = await startReceiver({ closeIdleAfterMs: 100 });
    const hook = await createWebhook(receiver.url('/closes-idle'));
    for (let count = 1; count <= 5; count += 1) {
      await deliverOne(hook.id, count);
      // Longer than the receiver keeps an idle connection, shorter than the sender does.
      await sleep(250);
    }
    const all = await deliveries(hook.id);
    expect(all).toHaveLength(5);
    for (const delivery of all) {
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts).toMatchObject([{ number: 1, httpStatus: 200, error: null }]);
    }
    expect(receiver.closedIdle).toBeGreaterThan(0);
    expect(receiver.received('/closes-idle')).toHaveLength(5);
  });

  it('keeps an idle connection for less time than a receiver that says nothing keeps it (2 s)', async () => {
    const receiver = await startReceiver({ closeIdleAfterMs: 2000 });
    const hook = await createWebhook(receiver.url('/two-seconds'));
    await deliverOne(hook.id, 1);
    await sleep(2300);
    const all = await deliverOne(hook.id, 2);
    expect(all.every((delivery) => delivery.status === 'delivered')).toBe(true);
    expect(receiver.closedIdle).toBe(0);
    expect(receiver.connections).toBe(2);
  });

  it.each([
    ['unknownIssuer', /^untrusted issuer: .* \[UNABLE_TO_VERIFY_LEAF_SIGNATURE\]$/],
    ['selfSigned', /^untrusted issuer: the certificate is self-signed \[DEPTH_ZERO_SELF_SIGNED_CERT\]$/],
    ['wrongName', /^name mismatch: .*DNS:other\.example.* \[ERR_TLS_CERT_ALTNAME_INVALID\]$/],
    ['expired', /^expired: .* \[CERT_HAS_EXPIRED\]$/],
  ] as const)('records why TLS failed with a receiver whose certificate is %s', async (problem, detail) => {
    const receiver = await startReceiver({ certificate: badCertificates()[problem] });
    const hook = await createWebhook(receiver.url(`/${problem}`));
    const [delivery] = await deliverOne(hook.id, 1);
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ httpStatus: null, error: 'tls' });
    expect(delivery.attempts[0].errorDetail).toMatch(detail);
    expect(receiver.requests).toHaveLength(0);
  });
});
