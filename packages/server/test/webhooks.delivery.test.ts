import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { HeldEndpoint } from './support/webhooks/held-endpoint.js';
import { Receiver } from './support/webhooks/receiver.js';
import { serviceSignatureValid, standardSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

interface Webhook {
  id: string;
  isActive: boolean;
  disabledReason: string | null;
  secret: string;
}

interface Attempt {
  number: number;
  trigger: 'scheduled' | 'manual';
  startedAt: string;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
  requestHeaders: Record<string, string> | null;
}

interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Attempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  payload: { event: string; orgId: string; timestamp: string; data: Record<string, unknown> };
}

const minute = 60_000;
const schedule = [0, minute, 5 * minute, 15 * minute, 30 * minute];

describe.each(databaseKinds())('webhook deliveries on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let projectId: string;
  const clock = new ManualClock('2026-04-01T08:00:00.000Z');

  beforeAll(async () => {
    receiver = await Receiver.start();
    receiver.respond = (request) => {
      if (request.path.startsWith('/fail')) return { status: 500, body: 'nope' };
      if (request.path === '/busy') return { status: 429, headers: { 'retry-after': '600' } };
      if (request.path === '/gone') return { status: 410, body: 'gone' };
      if (request.path === '/stall') return { status: 200, delayMs: 5000 };
      if (request.path.startsWith('/flaky')) return upPaths.has(request.path) ? { status: 204 } : { status: 502, body: 'down' };
      return { status: 200, body: 'ok' };
    };
    t = await startTestApp(kind, { clock, config: { webhookAllowPrivate: true } });
    worker = await startWorker(1000);
  });
  // Each test has an organization of its own: no webhook, delivery or project of another test is in its way.
  // Its polls fall in one rate-limit window of a clock that stands still: its limit is out of their way.
  beforeEach(async () => {
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    projectId = (await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Shop' } })).body.data.id;
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
  });

  /** The worker gives up on a receiver after `webhookTimeoutMs`. */
  const startWorker = (webhookTimeoutMs: number) =>
    DeliveryWorker.start({
      db: t.database.db,
      clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs, webhookRetryScheduleMs: schedule, webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
      perWebhookInFlight: 2,
      maxInFlight: 16,
    });

  /** The /flaky… paths that answer 204 now (each test has paths of its own); the others answer 502. */
  const upPaths = new Set<string>();

  const createWebhook = async (path: string, events: string[]) => {
    const response = await t.request<{ data: Webhook }>('POST', 'webhooks', {
      apiKey: org.apiKey,
      body: { name: `hook ${path}`, url: receiver.url(path), events },
    });
    expect(response.status).toBe(201);
    return response.body.data;
  };
  const deliveries = async (webhookId: string, query = '') =>
    (await t.request<{ data: Delivery[] }>('GET', `webhooks/${webhookId}/deliveries${query}`, { apiKey: org.apiKey })).body.data;
  const delivery = async (webhookId: string, id: string) =>
    (await t.request<{ data: Delivery }>('GET', `webhooks/${webhookId}/deliveries/${id}`, { apiKey: org.apiKey })).body.data;
  const onlyDelivery = async (webhookId: string, done: (d: Delivery) => boolean, what: string) =>
    waitFor(async () => (await deliveries(webhookId))[0], (d) => d !== undefined && done(d), what);
  const createAlert = (body: Record<string, unknown>) =>
    t.request<{ data: Record<string, unknown> }>('POST', 'alerts', { apiKey: org.apiKey, body: { projectId, ...body } });
  /** Lets the worker look at the (manual) clock now and waits until it has nothing in hand. */
  const settle = async () => {
    worker.wake();
    await worker.idle();
  };

  it('delivers each subscribed event once, signed so that an independent receiver verifies both signatures', async () => {
    const hook = await createWebhook('/signed', ['alert.created', 'alert.critical']);
    const alert = (await createAlert({ title: 'Disk full', severity: 'critical', area: 'db', value: '98 %', threshold: '90 %' })).body.data;
    await createAlert({ title: 'Minor', severity: 'low' });
    const received = await waitFor(async () => receiver.received('/signed'), (r) => r.length === 3, 'three deliveries');

    for (const request of received) {
      expect(serviceSignatureValid(hook.secret, request.headers, request.body)).toBe(true);
      expect(standardSignatureValid(hook.secret, request.headers, request.body)).toBe(true);
      expect(serviceSignatureValid('whsec_wrong', request.headers, request.body)).toBe(false);
      const body = JSON.parse(request.body) as Delivery['payload'];
      expect(Object.keys(body)).toEqual(['event', 'orgId', 'timestamp', 'data']);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-service-event']).toBe(body.event);
      expect(request.headers['x-service-delivery']).toBe(request.headers['webhook-id']);
      expect(request.headers['webhook-id']).toMatch(/^dlv_[0-9a-z]{26}$/);
      expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
      expect(request.headers['user-agent']).toMatch(/^Vigil-Webhooks\//);
      expect(body.orgId).toBe(org.orgId);
      expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const shown = (await t.request<{ data: Record<string, unknown> }>('GET', `alerts/${alert.id as string}`, { apiKey: org.apiKey })).body.data;
    const bodies = received.map((request) => JSON.parse(request.body) as Delivery['payload']);
    expect(bodies.map((b) => b.event).sort()).toEqual(['alert.created', 'alert.created', 'alert.critical']);
    const critical = bodies.find((b) => b.event === 'alert.critical')!;
    expect(critical.data).toEqual(shown);
    expect(Object.keys(critical.data)).toEqual(Object.keys(shown));

    const history = await waitFor(() => deliveries(hook.id), (d) => d.length === 3 && d.every((x) => x.status === 'delivered'), 'delivered');
    expect(history.map((d) => d.id)).toEqual([...history.map((d) => d.id)].sort().reverse());
    for (const item of history) {
      expect(item.attempts).toEqual([
        {
          number: 1,
          trigger: 'scheduled',
          startedAt: clock.now().toISOString(),
          durationMs: expect.any(Number),
          httpStatus: 200,
          error: null,
          errorDetail: null,
          responseBody: 'ok',
          requestHeaders: expect.any(Object),
        },
      ]);
      expect(item.nextAttemptAt).toBeNull();
      const sent = received.find((request) => request.headers['webhook-id'] === item.id)!;
      // The history shows the request as the receiver got it, signatures included.
      const sentHeaders = item.attempts[0].requestHeaders!;
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-service-signature', 'x-service-event', 'user-agent']) {
        expect(sentHeaders[name], name).toBe(sent.headers[name]);
      }
      expect(item.payload).toEqual(JSON.parse(sent.body));
    }
    expect(await deliveries(hook.id, '?event=alert.critical')).toHaveLength(1);
    expect(await deliveries(hook.id, '?status=failed')).toHaveLength(0);
    const firstPage = await t.request<{ data: Delivery[]; meta: { nextCursor: string } }>('GET', `webhooks/${hook.id}/deliveries?limit=2`, {
      apiKey: org.apiKey,
    });
    const secondPage = await deliveries(hook.id, `?limit=2&cursor=${firstPage.body.meta.nextCursor}`);
    expect([...firstPage.body.data, ...secondPage].map((d) => d.id)).toEqual(history.map((d) => d.id));
    expect(await delivery(hook.id, history[0].id)).toEqual(history[0]);
  });

  it('retries after 1, 5, 15 and 30 minutes and marks the delivery failed after attempt 5', async () => {
    const hook = await createWebhook('/fail-retry', ['project.updated']);
    const start = clock.now().getTime();
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'retry' } });
    let current = await onlyDelivery(hook.id, (d) => d.attempts.length === 1, 'attempt 1');
    expect(current).toMatchObject({ status: 'pending', nextAttemptAt: new Date(start + minute).toISOString() });
    expect(current.attempts[0]).toMatchObject({ httpStatus: 500, error: null, responseBody: 'nope', trigger: 'scheduled' });

    clock.advance(minute - 1000);
    await settle();
    expect((await delivery(hook.id, current.id)).attempts).toHaveLength(1);

    for (const [index, wait] of schedule.slice(1).entries()) {
      clock.set(new Date(current.nextAttemptAt!));
      worker.wake();
      current = await onlyDelivery(hook.id, (d) => d.attempts.length === index + 2, `attempt ${index + 2}`);
      expect(new Date(current.attempts[index + 1].startedAt).getTime() - new Date(current.attempts[index].startedAt).getTime()).toBe(wait);
    }
    expect(current).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(current.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(receiver.received('/fail-retry').map((r) => r.headers['webhook-id']))).toEqual(new Set([current.id]));
    expect(receiver.received('/fail-retry')).toHaveLength(5);
    expect(await deliveries(hook.id, '?status=failed')).toHaveLength(1);
    await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey });
  });

  it("waits for a 429's Retry-After when it is later than the schedule", async () => {
    const hook = await createWebhook('/busy', ['project.updated']);
    const start = clock.now().getTime();
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'busy' } });
    const first = await onlyDelivery(hook.id, (d) => d.attempts.length === 1, 'attempt 1');
    expect(first.attempts[0].httpStatus).toBe(429);
    expect(first.nextAttemptAt).toBe(new Date(start + 10 * minute).toISOString());
    await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey });
  });

  it('gives up on a receiver that stalls past the timeout and records a timeout', async () => {
    const hook = await createWebhook('/stall', ['project.updated']);
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'stall' } });
    const first = await onlyDelivery(hook.id, (d) => d.attempts.length === 1, 'attempt 1');
    expect(first.attempts[0]).toMatchObject({ error: 'timeout', httpStatus: null, responseBody: null });
    expect(first.status).toBe('pending');
    await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey });
  });

  it('disables a webhook at once when its endpoint answers 410 Gone, and says why', async () => {
    const hook = await createWebhook('/gone', ['project.updated']);
    const watcher = await createWebhook('/watch', ['webhook.disabled']);
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'gone' } });
    const first = await onlyDelivery(hook.id, (d) => d.status === 'failed', 'failed');
    expect(first.attempts).toHaveLength(1);
    const after = (await t.request<{ data: Webhook }>('GET', `webhooks/${hook.id}`, { apiKey: org.apiKey })).body.data;
    expect(after).toMatchObject({ isActive: false, disabledReason: 'The endpoint answered 410 Gone.' });
    const notice = await waitFor(async () => receiver.received('/watch'), (r) => r.length === 1, 'webhook.disabled');
    expect(JSON.parse(notice[0].body)).toMatchObject({ event: 'webhook.disabled', data: { id: hook.id, disabledReason: after.disabledReason } });
    await t.request('DELETE', `webhooks/${watcher.id}`, { apiKey: org.apiKey });
  });

  it('sends one delivery again on request, and every failed one since a time with recover', async () => {
    const hook = await createWebhook('/flaky-recover', ['alert.created']);
    for (const title of ['one', 'two', 'three']) await createAlert({ title, severity: 'info' });
    await waitFor(() => deliveries(hook.id), (d) => d.length === 3 && d.every((x) => x.attempts.length === 1), 'first attempts');
    for (let attempt = 2; attempt <= 5; attempt += 1) {
      clock.advance(30 * minute);
      worker.wake();
      await waitFor(() => deliveries(hook.id), (d) => d.every((x) => x.attempts.length === attempt), `attempt ${attempt}`);
    }
    const failed = await deliveries(hook.id, '?status=failed');
    expect(failed).toHaveLength(3);

    upPaths.add('/flaky-recover');
    const retried = await t.request<{ data: Delivery }>('POST', `webhooks/${hook.id}/deliveries/${failed[0].id}/retry`, { apiKey: org.apiKey });
    expect(retried.status).toBe(202);
    expect(retried.body.data.id).toBe(failed[0].id);
    const done = await waitFor(() => delivery(hook.id, failed[0].id), (d) => d.status === 'delivered', 'manual retry');
    expect(done.attempts.at(-1)).toMatchObject({ number: 6, trigger: 'manual', httpStatus: 204 });
    expect(done.nextAttemptAt).toBeNull();

    const since = new Date(clock.now().getTime() - 3 * 3600_000).toISOString();
    const recovery = await t.request<{ data: { deliveries: number } }>('POST', `webhooks/${hook.id}/recover`, { apiKey: org.apiKey, body: { since } });
    expect(recovery.status).toBe(202);
    expect(recovery.body.data).toEqual({ webhookId: hook.id, since, deliveries: 2 });
    const all = await waitFor(() => deliveries(hook.id), (d) => d.every((x) => x.status === 'delivered'), 'recovered');
    for (const item of all) expect(item.attempts.map((a) => a.trigger)).toEqual(['scheduled', 'scheduled', 'scheduled', 'scheduled', 'scheduled', 'manual']);

    const again = await t.request<{ data: Delivery }>('POST', `webhooks/${hook.id}/deliveries/${all[0].id}/retry`, { apiKey: org.apiKey });
    expect(again.status).toBe(202);
    const twice = await waitFor(() => delivery(hook.id, all[0].id), (d) => d.attempts.length === 7, 'second manual attempt');
    expect(twice.status).toBe('delivered');
  });

  it('signs with the old secret beside the new one for 24 hours after a rotation', async () => {
    const hook = await createWebhook('/rotate', ['project.updated']);
    const rotated = (await t.request<{ data: Webhook }>('POST', `webhooks/${hook.id}/rotate-secret`, { apiKey: org.apiKey })).body.data;
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'rotate 1' } });
    const [during] = await waitFor(async () => receiver.received('/rotate'), (r) => r.length === 1, 'delivery during overlap');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardSignatureValid(hook.secret, during.headers, during.body)).toBe(true);
    expect(standardSignatureValid(rotated.secret, during.headers, during.body)).toBe(true);
    expect(serviceSignatureValid(rotated.secret, during.headers, during.body)).toBe(true);

    clock.advance(24 * 3600_000 + 1000);
    await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: 'rotate 2' } });
    const after = (await waitFor(async () => receiver.received('/rotate'), (r) => r.length === 2, 'delivery after overlap'))[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardSignatureValid(hook.secret, after.headers, after.body)).toBe(false);
    expect(standardSignatureValid(rotated.secret, after.headers, after.body)).toBe(true);
    await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey });
  });

  it('disables a webhook whose deliveries have all failed for 5 days, and keeps one that recovered', async () => {
    const dead = await createWebhook('/fail-disable', ['user.invited']);
    const recovering = await createWebhook('/flaky-disable', ['user.invited']);
    const failingSince = clock.now().getTime();
    await t.request('POST', 'users', { apiKey: org.apiKey, body: { email: 'a@example.com', role: 'member' } });
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await onlyDelivery(dead.id, (d) => d.attempts.length === attempt, `attempt ${attempt}`);
      await onlyDelivery(recovering.id, (d) => d.attempts.length === attempt, `attempt ${attempt}`);
      clock.advance(30 * minute);
      worker.wake();
    }
    await onlyDelivery(dead.id, (d) => d.status === 'failed', 'failed');
    upPaths.add('/flaky-disable');
    await t.request('POST', 'users', { apiKey: org.apiKey, body: { email: 'b@example.com', role: 'member' } });
    await waitFor(() => deliveries(recovering.id, '?status=delivered'), (d) => d.length === 1, 'recovering webhook succeeds');

    clock.set(new Date(failingSince + 5 * 24 * 3600_000 - 1000));
    expect(await worker.sweep()).toEqual([]);
    clock.advance(1000);
    await settle();
    expect(await worker.sweep()).toEqual([dead.id]);
    const after = (await t.request<{ data: Webhook }>('GET', `webhooks/${dead.id}`, { apiKey: org.apiKey })).body.data;
    expect(after.isActive).toBe(false);
    expect(after.disabledReason).toMatch(/^Every delivery has failed since 2026-04-\d\dT.*5 days/);
    const [event] = await t.database.db.query<{ data: { id: string; disabledReason: string } }>(
      `SELECT data FROM events WHERE type = 'webhook.disabled' AND data->>'id' = $1`,
      [dead.id],
    );
    expect(event.data.disabledReason).toBe(after.disabledReason);
    expect((await t.request<{ data: Webhook }>('GET', `webhooks/${recovering.id}`, { apiKey: org.apiKey })).body.data.isActive).toBe(true);

    const reenabled = await t.request<{ data: Webhook }>('PATCH', `webhooks/${dead.id}`, { apiKey: org.apiKey, body: { isActive: true } });
    expect(reenabled.body.data).toMatchObject({ isActive: true, disabledReason: null });
    expect(await worker.sweep()).toEqual([]);
    for (const hook of [dead, recovering]) await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey });
  });

  it('keeps a slow endpoint to its in-flight limit so that the other webhooks are delivered meanwhile, on the same host too', async () => {
    // The slow endpoint holds its requests for as long as the test needs: far less than this worker waits for an answer.
    await worker.stop();
    worker = await startWorker(60_000);
    // One host for both webhooks, as when two organizations use one receiver service: the slow
    // webhook's requests must not take the connections the other one needs.
    const slowEndpoint = await HeldEndpoint.start();
    try {
      const webhook = async (url: string, events: string[]) => {
        const response = await t.request<{ data: Webhook }>('POST', 'webhooks', { apiKey: org.apiKey, body: { name: `hook ${url}`, url, events } });
        expect(response.status).toBe(201);
        return response.body.data;
      };
      slowEndpoint.hold('/slow');
      const slow = await webhook(slowEndpoint.url('/slow'), ['project.updated']);
      const fast = await webhook(slowEndpoint.url('/fast'), ['project.deleted']);
      for (let index = 0; index < 10; index += 1) {
        await t.request('PATCH', `projects/${projectId}`, { apiKey: org.apiKey, body: { area: `slow ${index}` } });
      }
      await t.request('DELETE', `projects/${projectId}`, { apiKey: org.apiKey });

      await slowEndpoint.until('/slow', (seen) => seen.open >= 2);
      await waitFor(() => deliveries(fast.id, '?status=delivered'), (d) => d.length === 1, 'the fast delivery while the slow endpoint holds its requests');
      expect(slowEndpoint.seen('/slow')).toEqual({ arrived: 2, open: 2, mostOpen: 2, answered: 0 });
      expect(await deliveries(slow.id, '?status=delivered&limit=100')).toEqual([]);

      slowEndpoint.release('/slow');
      await waitFor(() => deliveries(slow.id, '?status=delivered&limit=100'), (d) => d.length === 10, 'all slow deliveries');
      expect(slowEndpoint.seen('/slow')).toEqual({ arrived: 10, open: 0, mostOpen: 2, answered: 10 });
    } finally {
      await slowEndpoint.close();
      await worker.stop();
      worker = await startWorker(1000);
    }
  });
});

describe.each(databaseKinds())('a first wait in the retry schedule on %s', (kind) => {
  it('holds attempt 1 back for the first value of VIGIL_WEBHOOK_RETRY_SCHEDULE_MS', async () => {
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    const receiver = await Receiver.start();
    const t = await startTestApp(kind, { clock, config: { webhookAllowPrivate: true } });
    const worker = await DeliveryWorker.start({
      db: t.database.db,
      clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 1000, webhookRetryScheduleMs: [30_000, ...schedule.slice(1)], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 20,
    });
    try {
      const org = await t.createOrg('business');
      const hook = await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name: 'later', url: receiver.url('/later'), events: ['project.created'] },
      });
      await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Later' } });
      const list = async () => (await t.request<{ data: Delivery[] }>('GET', `webhooks/${hook.body.data.id}/deliveries`, { apiKey: org.apiKey })).body.data;
      const waiting = await waitFor(list, (d) => d[0]?.nextAttemptAt === '2026-05-01T00:00:30.000Z', 'attempt 1 scheduled 30 s later');
      expect(waiting[0].attempts).toEqual([]);
      expect(receiver.requests).toHaveLength(0);
      clock.advance(30_000);
      worker.wake();
      const sent = await waitFor(list, (d) => d[0]?.status === 'delivered', 'attempt 1');
      expect(sent[0].attempts[0]).toMatchObject({ number: 1, startedAt: '2026-05-01T00:00:30.000Z', httpStatus: 200 });
    } finally {
      await worker.stop();
      await t.close();
      await receiver.close();
    }
  });
});
