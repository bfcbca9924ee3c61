import { spawn } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { connectDb, type Db } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/platform/clock.js';
import { MemoryCounterStore, RateLimiter } from '../src/platform/rate-limit.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, testConfig, testSecretKey, type TestApp } from './support/app.js';
import { dropProjectData } from './support/ai.js';
import { postgresUrl } from './support/databases.js';
import { needs } from './support/requirements.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

/** The value of one sample line (`name{labels} value`) in a Prometheus text scrape. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

const kind = postgresUrl ? 'postgres' : 'pglite';

describe(`GET /metrics on ${kind}, loopback only (no VIGIL_METRICS_TOKEN)`, () => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    t = await startTestApp(kind, { config: { webhookAllowPrivate: true } });
    receiver = await Receiver.start();
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 60_000, 60_000, 60_000, 60_000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
    });
  });
  let workerStopped = false;
  afterAll(async () => {
    if (!workerStopped) await worker.stop();
    await t.close();
    await receiver.close();
  });

  it('counts requests by route pattern and status, 429s, webhook attempts, the queue, the pool and the event loop', async () => {
    const org = await t.createOrg('business', { rateLimitPerMinute: 6 });
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Metered' } });
    await t.request('POST', 'webhooks', { apiKey: org.apiKey, body: { name: 'm', url: receiver.url('/metered'), events: ['alert.created'] } });
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId: project.body.data.id, title: 'Counted', severity: 'low' } });
    await t.request('GET', `projects/${project.body.data.id}`, { apiKey: org.apiKey });
    await t.request('GET', 'projects/prj_doesnotexist', { apiKey: org.apiKey });
    for (let i = 0; i < 3; i += 1) await t.request('GET', 'projects', { apiKey: org.apiKey });
    await waitFor(() => receiver.received('/metered'), (list) => list.length === 1, 'the delivery');
    await worker.idle();

    const scrape = await t.request<string>('GET', '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain');
    const text = String(scrape.body);
    expect(sample(text, 'vigil_http_requests_total', { method: 'GET', route: '/api/v1/projects/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_http_requests_total', { method: 'GET', route: '/api/v1/projects/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/alerts', status: '201' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('prj_doesnotexist');
    expect(sample(text, 'vigil_rate_limit_refusals_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_webhook_attempts_total', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_webhook_attempt_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_webhook_deliveries_due')).toBe(0);
    expect(sample(text, 'vigil_webhook_oldest_due_age_seconds')).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    if (kind === 'postgres') expect(sample(text, 'vigil_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vigil_project_sql_statements', { state: 'running' })).toBe(0);
  });

  it.runIf(needs('promtool', "promtool's check of the scrape"))('passes `promtool check metrics` (Prometheus\'s own lint of the exposition format)', async () => {
    const scrape = String((await t.request<string>('GET', '/metrics')).body);
    const checked = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('/usr/bin/promtool', ['check', 'metrics']);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, output }));
      child.stdin.end(scrape);
    });
    expect(checked).toEqual({ code: 0, output: '' });
  });

  // On PGlite a read held open would hold the one connection the scrape needs too.
  it.runIf(kind === 'postgres')('shows SQL run as a project role while it runs', async () => {
    const org = await t.createOrg('business');
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Read' } });
    const { readers } = t.app.services.chat;
    await readers.ensure(org.orgId, project.body.data.id, []);
    let release = () => undefined as void;
    let reading = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => (reading = resolve));
    const held = readers.read(project.body.data.id, 5_000, async () => {
      reading();
      await released;
    });
    try {
      await started;
      const text = (await t.request<string>('GET', '/metrics')).body;
      expect(sample(text, 'vigil_project_sql_statements', { state: 'running' })).toBe(1);
      expect(sample(text, 'vigil_project_sql_statements', { state: 'waiting' })).toBe(0);
    } finally {
      release();
      await held;
      await dropProjectData(t, [project.body.data.id]);
    }
  });

  it('shows a due delivery and its age while no worker takes it', async () => {
    await worker.stop();
    workerStopped = true;
    const org = await t.createOrg('business');
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Queued' } });
    await t.request('POST', 'webhooks', { apiKey: org.apiKey, body: { name: 'q', url: receiver.url('/queued'), events: ['alert.created'] } });
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { projectId: project.body.data.id, title: 'Waiting', severity: 'low' } });
    const text = String((await t.request<string>('GET', '/metrics')).body);
    expect(sample(text, 'vigil_webhook_deliveries_due')).toBe(1);
    expect(sample(text, 'vigil_webhook_oldest_due_age_seconds')).toBeGreaterThanOrEqual(0);
  });
});

const outside = Object.values(os.networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

describe('who may scrape', () => {
  const token = 'metrics-token-0123456789';
  let db: Db;
  const apps: App[] = [];

  beforeAll(async () => {
    db = await connectDb({});
    await migrate(db);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db.close();
  });

  const serve = async (metricsToken: string | undefined, host: string) => {
    const app = await buildApp({ config: testConfig({ logLevel: 'silent', metricsToken }), db, clock: systemClock, limiter: new RateLimiter(new MemoryCounterStore()) });
    apps.push(app);
    return app.http.listen({ port: 0, host });
  };

  it.runIf(outside)('without a token, a client that is not on loopback gets 403 FORBIDDEN in the error format', async () => {
    const address = await serve(undefined, outside!);
    const answer = await fetch(`${address}/metrics`);
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({ code: 'FORBIDDEN', requestId: expect.stringMatching(/^req_/) });
  });

  it('with VIGIL_METRICS_TOKEN, the bearer token is required, from loopback too', async () => {
    const address = await serve(token, '127.0.0.1');
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${token}x`]) {
      const answer = await fetch(`${address}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const scraped = await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('vigil_http_requests_total');
  });
});
