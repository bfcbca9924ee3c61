import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { connectDb, type Db } from '../src/db/connect.js';
import { systemClock } from '../src/platform/clock.js';
import { MemoryCounterStore, RateLimiter } from '../src/platform/rate-limit.js';
import { startTestApp, testConfig, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds, openTestDatabase, postgresUrl, type TestDatabase } from './support/databases.js';
import { call, requestInFlight, runCliJson, startServerProcess, tempDataDir } from './support/processes.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { needs } from './support/requirements.js';

interface LogLine {
  level: number;
  time: number;
  msg: string;
  reqId?: string;
  statusCode?: number;
  url?: string;
  [field: string]: unknown;
}

const parsed = (logs: string[]): LogLine[] => logs.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as LogLine);

describe.each(databaseKinds())('logs and health on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  it('writes one pino JSON line per request, carrying the request id it answered with', async () => {
    const answers = [
      await t.request('GET', 'projects', { apiKey: org.apiKey }),
      await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Logged' } }),
      await t.request('GET', 'no-such-thing', { apiKey: org.apiKey }),
      await t.request('GET', 'projects'),
    ];
    const lines = parsed(t.logs);
    for (const answer of answers) {
      const requestId = answer.headers.get('x-request-id');
      expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
      const line = lines.find((entry) => entry.reqId === requestId && entry.msg === 'request');
      expect(line).toMatchObject({ level: 30, statusCode: answer.status, time: expect.any(Number) });
    }
  });

  it('never writes the Authorization header, an API key or a secret to the logs', async () => {
    const wrongKey = `svc_live_${'ab'.repeat(32)}`;
    await t.request('GET', 'projects', { apiKey: org.apiKey });
    await t.request('GET', 'projects', { apiKey: wrongKey });
    await t.request('GET', '/healthz', { headers: { authorization: `Bearer ${org.apiKey}`, cookie: 'session=cookie-value' } });
    await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'x', password: 'hunter2-in-a-body' } });
    t.app.http.log.info(
      {
        password: 'hunter2-at-the-top',
        req: { headers: { authorization: `Bearer ${org.apiKey}`, cookie: 'session=cookie-value' } },
        connection: { host: 'db', password: 'hunter2-in-a-log' },
        webhook: { id: 'whk_1', secret: 'whsec_in-a-log' },
        created: { apiKey: org.apiKey },
        embed: { token: 'token-in-a-log' },
      },
      'something an operator logged',
    );
    const text = t.logs.join('');
    expect(text).toContain('something an operator logged');
    for (const secret of [org.apiKey, org.apiKey.slice('svc_live_'.length), wrongKey, 'Bearer', 'cookie-value', 'hunter2', 'whsec_in-a-log', 'token-in-a-log']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('answers /healthz and /readyz while the database is there', async () => {
    const health = await t.request('GET', '/healthz');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await t.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('when the database is gone: /readyz 503, /healthz still 200, API calls 500 logged with their request id', async () => {
    const unused = await t.app.services.apiKeys.create(org.orgId);
    await t.database.db.close();
    expect(await t.request('GET', '/readyz')).toMatchObject({ status: 503, body: { status: 'unavailable' } });
    expect((await t.request('GET', '/healthz')).status).toBe(200);

    const failed = await t.request<{ code: string; requestId: string; error: string }>('GET', 'projects', { apiKey: unused.apiKey });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ code: 'INTERNAL_ERROR', error: expect.any(String), requestId: failed.headers.get('x-request-id') });
    expect(JSON.stringify(failed.body)).not.toMatch(/at \w+ \(|\.ts:/);
    const logged = parsed(t.logs).find((line) => line.reqId === failed.body.requestId && line.level === 50);
    expect(logged).toMatchObject({ msg: 'request failed', err: expect.objectContaining({ message: expect.any(String) }) });
    expect(t.logs.join('')).not.toContain(unused.apiKey);
  });
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('readiness when PostgreSQL goes away and comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Db;
  let app: App;
  let baseUrl: string;

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    const direct = new URL(postgresUrl!);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(postgresUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    db = await connectDb({ databaseUrl: viaProxy.toString(), searchPath: database.schema, poolSize: 2 });
    app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db, clock: systemClock, limiter: new RateLimiter(new MemoryCounterStore()) });
    baseUrl = await app.http.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await db.close();
    await proxy.close();
    await database.drop();
  });

  it('answers 503 while the server is unreachable and 200 again once it is back', async () => {
    expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200);
    await proxy.cut();
    expect(await call(baseUrl, 'GET', '/readyz')).toMatchObject({ status: 503, body: { status: 'unavailable' } });
    expect((await call(baseUrl, 'GET', '/healthz')).status).toBe(200);
    await proxy.restore();
    expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('a server process on the embedded database', () => {
  it('keeps its data across a restart, and on SIGTERM finishes in-flight requests before exiting 0', async () => {
    const data = await tempDataDir({ migrated: true });
    const env = { VIGIL_DATA_DIR: data.dir };
    try {
      const first = await startServerProcess(env);
      expect(first.output.stdout).toContain(`${first.url}/api/v1`);
      expect(first.output.stdout).toContain('npx vigil org create --name');
      const secretKey = await readFile(path.join(data.dir, 'secret.key'), 'utf8');
      const created = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Durable', '--plan', 'business'], env);
      const project = await call(first.url, 'POST', 'projects', { apiKey: created.apiKey, body: { name: 'Before the restart' } });
      expect(project.status).toBe(201);

      const inFlight = Array.from({ length: 8 }, (_, i) => requestInFlight(first.url, created.apiKey, `In flight ${i}`));
      await Promise.all(inFlight.map((request) => request.connected));
      expect((await call(first.url, 'GET', '/healthz')).status).toBe(200);
      // Time for the server to read their headers: a request it has not started is not in flight.
      await sleep(500);
      const exit = first.stop('SIGTERM');
      await first.waitForOutput(/SIGTERM received/);
      await sleep(300);
      const late = await fetch(`${first.url}/healthz`).then((response) => response.status, () => 'refused');
      expect(late === 503 || late === 'refused').toBe(true);
      expect(first.child.exitCode).toBeNull();
      for (const request of inFlight) request.finish();
      const answers = await Promise.all(inFlight.map((request) => request.response));
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
      expect(await exit).toMatchObject({ code: 0 });

      const second = await startServerProcess(env);
      try {
        const listed = await call(second.url, 'GET', 'projects?limit=100', { apiKey: created.apiKey });
        expect(listed.status).toBe(200);
        const names = (listed.body.data as { name: string }[]).map((entry) => entry.name).sort();
        expect(names).toEqual(['Before the restart', ...Array.from({ length: 8 }, (_, i) => `In flight ${i}`)].sort());
        expect(await readFile(path.join(data.dir, 'secret.key'), 'utf8')).toBe(secretKey);
      } finally {
        expect((await second.stop()).code).toBe(0);
      }
    } finally {
      await data.remove();
    }
  });
});

describe('a process in the worker role', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('pglite', { config: { role: 'worker' } });
  });
  afterAll(() => t.close());

  it('answers health checks but serves no REST API, reference or OpenAPI document', async () => {
    const org = await t.createOrg('business');
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
    const api = await t.request('GET', 'projects', { apiKey: org.apiKey });
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await t.request('GET', '/api/v1/openapi.json')).status).toBe(404);
    expect((await t.request('GET', '/docs')).status).toBe(404);
  });
});
