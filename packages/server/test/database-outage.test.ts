import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import type { Db } from '../src/db/connect.js';
import { DatabaseUnavailable } from '../src/db/unavailable.js';
import { systemClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { testSecretKey } from './support/app.js';
import { postgresBinDir, type PostgresServer } from './support/postgres-server.js';
import { type PrivateServerApp, startAppOnPrivateServer } from './support/private-server-app.js';
import { call } from './support/processes.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

/** Short bounds, so that the frozen-server case takes about a second. */
const connectTimeoutMs = 500;
const statementTimeoutMs = 1000;

describe.runIf(postgresBinDir !== undefined || needs('postgres-server', 'a private PostgreSQL server'))('a PostgreSQL server of its own that restarts, stops and freezes', () => {
  let outage: PrivateServerApp;
  let server: PostgresServer;
  let db: Db;
  let app: App;
  let baseUrl: string;
  let worker: DeliveryWorker;
  let receiver: Receiver;
  let apiKey: string;
  let projectId: string;

  beforeAll(async () => {
    outage = await startAppOnPrivateServer({ connectTimeoutMs, statementTimeoutMs });
    ({ server, db, app, baseUrl } = outage);
    apiKey = (await app.services.organizations.create({ name: 'Outage', plan: 'business', adminEmail: 'ops@example.com' })).apiKey;
    receiver = await Receiver.start();
    // The poll and the sweep are ten minutes apart: a delivery that goes out sooner was woken by NOTIFY.
    worker = await DeliveryWorker.start({
      db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 60_000, 60_000, 60_000, 60_000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 600_000,
      sweepIntervalMs: 600_000,
    });
    projectId = ((await call(baseUrl, 'POST', 'projects', { apiKey, body: { name: 'Checkout' } })).body.data as { id: string }).id;
    const hook = await call(baseUrl, 'POST', 'webhooks', { apiKey, body: { name: 'Alerts', url: receiver.url('/alerts'), events: ['alert.created'] } });
    expect(hook.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await outage?.close();
  });

  const createAlert = (title: string) => call(baseUrl, 'POST', 'alerts', { apiKey, body: { projectId, title, severity: 'high' } });
  const restart = async () => {
    await server.stop();
    await server.start();
  };

  it('a listener reconnects after a restart, re-subscribes, and hears NOTIFYs again', async () => {
    const heard: string[] = [];
    let resubscribed!: () => void;
    const back = new Promise<void>((resolve) => (resubscribed = resolve));
    const unlisten = await db.listen('vigil_outage_test', (payload) => heard.push(payload), { onResubscribed: () => resubscribed() });
    try {
      await db.query(`SELECT pg_notify('vigil_outage_test', 'before')`);
      await waitFor(() => heard, (list) => list.includes('before'), 'the NOTIFY before the restart');
      await restart();
      await back;
      await db.query(`SELECT pg_notify('vigil_outage_test', 'after')`);
      await waitFor(() => heard, (list) => list.includes('after'), 'the NOTIFY after the restart', 5000);
    } finally {
      await unlisten();
    }
  });

  it('a listener back after a restart calls onResubscribed before it hands on anything its new session heard', async () => {
    const heard: string[] = [];
    let resubscribed!: () => void;
    const back = new Promise<void>((resolve) => (resubscribed = resolve));
    const unlisten = await db.listen('vigil_outage_order', (payload) => heard.push(payload), {
      onResubscribed: () => {
        heard.push('resubscribed');
        resubscribed();
      },
    });
    await restart();
    // NOTIFYs from four sessions while the listener comes back: some arrive with LISTEN's own answer.
    let flooding = true;
    const flood = Promise.all(
      [1, 2, 3, 4].map(async (session) => {
        for (let i = 0; flooding; i++) await db.query(`SELECT pg_notify('vigil_outage_order', $1)`, [`${session}.${i}`]).catch(() => undefined);
      }),
    );
    try {
      await back;
      await waitFor(() => heard.length, (count) => count > 100, 'NOTIFYs after the listener is back');
    } finally {
      flooding = false;
      await flood;
      await unlisten();
    }
    expect(heard[0]).toBe('resubscribed');
  });

  it('the webhook worker is woken by NOTIFY before and after a restart, not by its poll', async () => {
    expect((await createAlert('Before the restart')).status).toBe(201);
    await waitFor(() => receiver.received('/alerts'), (list) => list.length === 1, 'the delivery before the restart', 5000);
    await restart();
    const created = await waitFor(() => createAlert('After the restart'), (answer) => answer.status === 201, 'the API back after the restart', 5000);
    expect(created.status).toBe(201);
    const received = await waitFor(() => receiver.received('/alerts'), (list) => list.length === 2, 'the delivery after the restart', 5000);
    expect(received.map((request) => (JSON.parse(request.body) as { data: { title: string } }).data.title)).toEqual(['Before the restart', 'After the restart']);
  });

  it('while the server is stopped: 503 SERVICE_UNAVAILABLE with Retry-After in the error format, /readyz 503; both recover by themselves', async () => {
    await server.stop();
    try {
      for (const answer of [await call(baseUrl, 'GET', 'projects', { apiKey }), await createAlert('During the outage')]) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
        expect(answer.body).toEqual({ code: 'SERVICE_UNAVAILABLE', error: expect.stringContaining('database'), requestId: answer.headers.get('x-request-id') });
      }
      const ready = await call(baseUrl, 'GET', '/readyz');
      expect(ready).toMatchObject({ status: 503, body: { status: 'unavailable' } });
      expect(ready.headers.get('retry-after')).toBe('5');
      expect((await call(baseUrl, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await server.start();
    }
    expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200);
    expect((await call(baseUrl, 'GET', 'projects', { apiKey })).status).toBe(200);
  });

  it('while the server is frozen, requests and /readyz answer 503 within their bounds instead of hanging', async () => {
    await server.freeze();
    try {
      // The probe's bound is 2 s, a request's is the statement timeout plus a second: past that, fetch gives up and the test fails.
      const ready = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(3500) });
      expect(ready.status).toBe(503);
      const answer = await fetch(`${baseUrl}/api/v1/projects`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(statementTimeoutMs + 3000) });
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await server.thaw();
    }
    await waitFor(() => call(baseUrl, 'GET', '/readyz'), (answer) => answer.status === 200, 'ready again after the thaw', 5000);
    expect((await call(baseUrl, 'GET', 'projects', { apiKey })).status).toBe(200);
  });

  it('a transaction on a frozen server fails within one statement timeout: its dead connection is destroyed, not sent a ROLLBACK', async () => {
    // A connection of the pool is idle and alive, so the transaction starts on it and its BEGIN is what goes unanswered.
    await db.query('SELECT 1');
    await server.freeze();
    try {
      // One bound is the statement timeout plus the client's second (2 s here); waiting for a ROLLBACK on the dead connection would make it two (4 s).
      const outcome = await Promise.race([
        db.transaction((tx) => tx.query('SELECT 1')).then(
          () => 'committed',
          (error: unknown) => (error instanceof DatabaseUnavailable ? 'unavailable' : String(error)),
        ),
        sleep(statementTimeoutMs + 2500).then(() => 'still waiting'),
      ]);
      expect(outcome).toBe('unavailable');
    } finally {
      await server.thaw();
    }
    await waitFor(() => call(baseUrl, 'GET', '/readyz'), (answer) => answer.status === 200, 'ready again after the thaw', 5000);
    expect((await createAlert('After the thaw')).status).toBe(201);
  });
});
