import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectDb, type Db } from '../src/db/connect.js';
import { systemClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { postgresUrl } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { HeldEndpoint } from './support/webhooks/held-endpoint.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

const workerScript = fileURLToPath(new URL('./support/webhooks/worker-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** PostgreSQL only: several processes share the queue, which PGlite (one process) cannot. */
describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('webhook delivery durability on postgres', () => {
  let t: TestApp;
  let org: TestOrg;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startTestApp('postgres', { config: { webhookAllowPrivate: true } });
  });
  // Each test has an organization of its own: its project events reach its own webhook only, and no delivery of another test is left for its workers.
  beforeEach(async () => {
    org = await t.createOrg('business');
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await t.close();
    await receiver.close();
  });

  const startWorkerProcess = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        WORKER_DATABASE_URL: postgresUrl,
        WORKER_SCHEMA: t.database.schema,
        WORKER_SECRET_KEY: testSecretKey,
        WORKER_LEASE_MS: '1500',
        NODE_EXTRA_CA_CERTS: testTls().caFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`worker process exited ${code}`)));
    });
    return child;
  };

  /** Through the service, which the API calls: more changes than the plan's rate limit lets through HTTP. */
  const emit = async (count: number, area: string) => {
    const projects = t.app.services.projects;
    const project = await projects.create(org.orgId, { name: area });
    for (let index = 0; index < count; index += 1) await projects.update(org.orgId, project.id, { area: `${area} ${index}` });
  };
  const statuses = (webhookId: string) =>
    t.database.db.query<{ id: string; status: string; attempts: number }>(
      `SELECT d.id, d.status, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM webhook_deliveries d WHERE d.webhook_id = $1`,
      [webhookId],
    );

  it('completes every delivery after the worker is killed with SIGKILL while attempts are in flight, and lists the lost attempts', async () => {
    let stalling = true;
    receiver.respond = () => (stalling ? { status: 200, delayMs: 60_000 } : { status: 200, body: 'ok' });
    const hook = (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name: 'durable', url: receiver.url('/durable'), events: ['project.updated'] },
      })
    ).body.data;
    await emit(40, 'durable');

    const first = await startWorkerProcess();
    const inFlight = await waitFor(() => receiver.received('/durable'), (r) => r.length >= 20, 'attempts in flight');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const cut = new Set(inFlight.map((request) => String(request.headers['webhook-id'])));
    const afterKill = await statuses(hook.id);
    expect(afterKill.every((d) => d.status === 'pending' && d.attempts <= 1)).toBe(true);
    // Every request that went out was recorded before it did.
    for (const id of cut) expect(afterKill.find((d) => d.id === id)?.attempts, id).toBe(1);

    stalling = false;
    const second = await startWorkerProcess();
    const done = await waitFor(() => statuses(hook.id), (rows) => rows.every((d) => d.status === 'delivered'), 'all delivered');
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));

    expect(done).toHaveLength(40);
    const seen = receiver.received('/durable').map((request) => String(request.headers['webhook-id']));
    expect(new Set(seen)).toEqual(new Set(done.map((d) => d.id)));
    for (const id of cut) expect(seen.filter((seenId) => seenId === id).length, id).toBeGreaterThanOrEqual(2);

    const listed = await t.request<{ data: { id: string; attempts: { number: number; error: string | null; httpStatus: number | null; durationMs: number }[] }[] }>(
      'GET',
      `webhooks/${hook.id}/deliveries?limit=100`,
      { apiKey: org.apiKey },
    );
    expect(listed.body.data).toHaveLength(40);
    for (const delivery of listed.body.data) {
      const { attempts } = delivery;
      expect(attempts.map((attempt) => attempt.number)).toEqual(attempts.map((_, index) => index + 1));
      expect(attempts.at(-1)).toMatchObject({ httpStatus: 200, error: null });
      const lost = attempts.slice(0, -1);
      expect(lost.every((attempt) => attempt.error === 'worker_lost' && attempt.httpStatus === null && attempt.durationMs > 0)).toBe(true);
      // A request the receiver saw from the killed worker is listed as lost; one it never saw may be too (it cannot be told apart).
      if (cut.has(delivery.id)) expect(lost).toHaveLength(1);
      else expect(lost.length).toBeLessThanOrEqual(1);
    }
  });

  it('never lets two workers attempt the same delivery at the same time', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 20 });
    receiver.maxConcurrentPerDelivery = 0;
    const hook = (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name: 'pair', url: receiver.url('/pair'), events: ['project.updated'] },
      })
    ).body.data;
    const dbs: Db[] = [];
    const workers: DeliveryWorker[] = [];
    for (let index = 0; index < 2; index += 1) {
      const db = await connectDb({ databaseUrl: postgresUrl, searchPath: t.database.schema, poolSize: 4 });
      dbs.push(db);
      workers.push(
        await DeliveryWorker.start({
          db,
          clock: systemClock,
          config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 100, 100, 100, 100], webhookAllowPrivate: true },
          ca: [testTls().ca],
          batchSize: 10,
          pollIntervalMs: 20,
        }),
      );
    }
    try {
      await emit(200, 'pair');
      const done = await waitFor(() => statuses(hook.id), (rows) => rows.length === 200 && rows.every((d) => d.status === 'delivered'), 'all delivered');
      expect(done.every((d) => d.attempts === 1)).toBe(true);
      const seen = receiver.received('/pair').map((request) => String(request.headers['webhook-id']));
      expect(seen).toHaveLength(200);
      expect(new Set(seen).size).toBe(200);
      expect(receiver.maxConcurrentPerDelivery).toBe(1);
      expect(workers.every((worker) => worker.attemptsMade > 0)).toBe(true);
    } finally {
      for (const worker of workers) await worker.stop();
      for (const db of dbs) await db.close();
    }
  });

  it('hands back the deliveries it claimed but had not sent when it stops, so another worker takes them at once', async () => {
    // Its requests are held until the worker is stopping: no timer races the stop.
    const endpoint = await HeldEndpoint.start();
    endpoint.hold('/handback');
    const hook = (
      await t.request<{ data: { id: string } }>('POST', 'webhooks', {
        apiKey: org.apiKey,
        body: { name: 'handback', url: endpoint.url('/handback'), events: ['project.deleted'] },
      })
    ).body.data;
    const startWorker = async (db: Db) =>
      DeliveryWorker.start({
        db,
        clock: systemClock,
        config: { secretKey: testSecretKey, webhookTimeoutMs: 5000, webhookRetryScheduleMs: [0, 100, 100, 100, 100], webhookAllowPrivate: true },
        ca: [testTls().ca],
        perWebhookInFlight: 2,
        leaseMs: 10 * 60_000,
        pollIntervalMs: 20,
      });
    const db = await connectDb({ databaseUrl: postgresUrl, searchPath: t.database.schema, poolSize: 4 });
    try {
      const first = await startWorker(db);
      for (let index = 0; index < 12; index += 1) {
        const project = await t.app.services.projects.create(org.orgId, { name: `handback ${index}` });
        await t.app.services.projects.delete(org.orgId, project.id);
      }
      await endpoint.until('/handback', (seen) => seen.open === 2);
      const stopped = first.stop();
      endpoint.release('/handback');
      await stopped;
      // It held 2 running and up to 4 started, waiting for a request slot (3 × its limit of 2): only
      // the running ones are its to finish; the others' attempts are closed as not_sent.
      expect(first.attemptsMade).toBe(2);
      const leased = await t.database.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND leased_until IS NOT NULL`,
        [hook.id],
      );
      expect(leased[0].n).toBe(0);
      const second = await startWorker(db);
      const done = await waitFor(() => statuses(hook.id), (rows) => rows.length === 12 && rows.every((d) => d.status === 'delivered'), 'all delivered');
      await second.stop();
      const unsent = await t.database.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
         WHERE d.webhook_id = $1 AND a.error = 'not_sent' AND a.number = 1`,
        [hook.id],
      );
      expect(done.filter((d) => d.attempts === 2)).toHaveLength(unsent[0].n);
      expect(done.every((d) => d.attempts === 1 || d.attempts === 2)).toBe(true);
      expect(first.attemptsMade + second.attemptsMade).toBe(12);
    } finally {
      await endpoint.close();
      await db.close();
    }
  });
});
