import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryCounterStore, RateLimiter, RedisCounterStore } from '../src/platform/rate-limit.js';
import { ManualClock, startTestApp, type HttpResult, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds, redisUrl } from './support/databases.js';
import { call, runCliJson, type ServerProcess, startServerProcess, tempDataDir, tempPostgresSchema } from './support/processes.js';
import { expectExactly } from './support/rate-limits.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { needs } from './support/requirements.js';

const unixSeconds = (iso: string) => Date.parse(iso) / 1000;

/**
 * What a server process on the real clock answers to requests made one after another: 200 and one
 * less remaining each time, counted again from the limit should a minute begin between two of them.
 */
function countedPerWindow(limit: number, answers: HttpResult[]): [number, string][] {
  const counts = new Map<string | null, number>();
  return answers.map((answer) => {
    const window = answer.headers.get('x-ratelimit-reset');
    const count = (counts.get(window) ?? 0) + 1;
    counts.set(window, count);
    return [200, String(limit - count)];
  });
}
const testPrefix = () => `vigil-test:rl:${randomBytes(4).toString('hex')}:`;

describe('the fixed-window limiter', () => {
  it('reports the limit, what is left, the window end in Unix seconds and a Retry-After of at least 1', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    const start = Date.parse('2026-01-01T00:00:30.250Z');
    expect(await limiter.take('org_a', 2, start)).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetAt: unixSeconds('2026-01-01T00:01:00Z'),
      retryAfter: 30,
    });
    expect(await limiter.take('org_a', 2, start)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('org_a', 2, Date.parse('2026-01-01T00:00:59.900Z'))).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1 });
    expect(await limiter.take('org_b', 2, start)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.take('org_a', 2, Date.parse('2026-01-01T00:01:00.000Z'))).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetAt: unixSeconds('2026-01-01T00:02:00Z'),
      retryAfter: 60,
    });
  });

  it('allows exactly the limit out of 200 simultaneous takes, in memory', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.take('org_burst', 120, 0)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(120);
  });
});

describe('when the shared counters are unreachable', () => {
  it('counts in this process instead, and reports it once a minute', async () => {
    const reports: string[] = [];
    const unreachable = {
      peers: 1,
      consume: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
      close: async () => undefined,
    };
    const limiter = new RateLimiter(unreachable, (message) => reports.push(message));
    const start = Date.parse('2026-01-01T00:00:00Z');
    const decisions = await Promise.all(Array.from({ length: 5 }, (_, i) => limiter.take('org_a', 3, start + i * 1000)));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false, false]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/counts its share of each limit alone/);
    await limiter.take('org_a', 3, start + 60_000);
    expect(reports).toHaveLength(2);
  });
});

describe.runIf(needs('redis', 'Redis tests'))('a server process whose Redis goes away and comes back', () => {
  it('keeps answering with rate-limit headers, logs a warning, and counts in Redis again once it is back', async () => {
    const direct = new URL(redisUrl!);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 6379) });
    const redis = new Redis(redisUrl!);
    const data = await tempDataDir({ migrated: true });
    const env = { VIGIL_DATA_DIR: data.dir, REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    await proxy.cut();
    const server = await startServerProcess(env);
    try {
      const created = await runCliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'No Redis', '--plan', 'business'], env);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call(server.url, 'GET', 'projects', { apiKey: created.apiKey }));
      expect(answers.map((answer) => [answer.status, answer.headers.get('x-ratelimit-remaining')])).toEqual(countedPerWindow(120, answers));
      expect(new Set(answers.map((answer) => answer.headers.get('x-ratelimit-reset'))).size).toBeLessThanOrEqual(2);
      await server.waitForOutput(/"level":40[^\n]*rate-limit counters are unreachable/);

      await proxy.restore();
      const counted = async () => (await redis.keys(`vigil:rl:${created.org.id}:*`)).length > 0;
      for (let attempt = 0; attempt < 100 && !(await counted()); attempt++) {
        expect((await call(server.url, 'GET', 'projects', { apiKey: created.apiKey })).status).toBe(200);
        await sleep(100);
      }
      expect(await counted()).toBe(true);
      await redis.del(...(await redis.keys(`vigil:rl:${created.org.id}:*`)));
    } finally {
      expect((await server.stop()).code).toBe(0);
      await Promise.all([redis.quit(), proxy.close(), data.remove()]);
    }
  });
});

describe.runIf(needs('redis', 'Redis tests'))('counters in Redis', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const redis = new Redis(redisUrl!);
    connections.push(redis);
    return redis;
  };
  afterAll(async () => {
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it('allows exactly the limit out of 200 takes split over two connections (two processes share the count)', async () => {
    const prefix = testPrefix();
    const limiters = [new RateLimiter(new RedisCounterStore(connect(), prefix)), new RateLimiter(new RedisCounterStore(connect(), prefix))];
    const now = Date.parse('2026-01-01T00:00:10Z');
    const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => limiters[i % 2].take('org_shared', 120, now)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(120);
    expect(decisions.map((decision) => decision.remaining).sort((a, b) => a - b).slice(-3)).toEqual([117, 118, 119]);
    const key = `${prefix}org_shared:${Date.parse('2026-01-01T00:00:00Z')}`;
    expect(await connections[0].get(key)).toBe('200');
    const ttl = await connections[0].pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });
});

describe.each(databaseKinds())('rate limits over HTTP on %s', (kind) => {
  let t: TestApp;
  const start = '2026-04-01T12:00:15.000Z';
  const clock = new ManualClock(start);
  let org: TestOrg;
  const windowEnd = '2026-04-01T12:01:00.000Z';

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
  });
  // Each test starts 15 s into the same minute with an organization of its own: no count of another test is in its window.
  beforeEach(async () => {
    clock.set(start);
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  const limitHeaders = (response: HttpResult) => ({
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  });

  it('sends X-RateLimit-* on every answer to an API-plan org: 200, 201, 404 and 422 alike', async () => {
    const reset = String(unixSeconds(windowEnd));
    const answers = [
      await t.request('GET', 'projects', { apiKey: org.apiKey }),
      await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Counted' } }),
      await t.request('GET', 'no-such-thing', { apiKey: org.apiKey }),
      await t.request('GET', 'projects/proj_01hzzzzzzzzzzzzzzzzzzzzzzz', { apiKey: org.apiKey }),
      await t.request('POST', 'projects', { apiKey: org.apiKey, body: { name: 42 } }),
      await t.request('POST', 'projects', { apiKey: org.apiKey, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 404, 404, 422, 422]);
    expect(answers.map(limitHeaders)).toEqual(
      [119, 118, 117, 116, 115, 114].map((remaining) => ({ limit: '120', remaining: String(remaining), reset })),
    );
  });

  it('lets exactly 120 of 200 simultaneous requests through, then 429 with Retry-After until the window restarts', async () => {
    const burst = await t.createOrg('business', { name: 'Burst' });
    const answers = await Promise.all(Array.from({ length: 200 }, () => t.request('GET', 'projects', { apiKey: burst.apiKey })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(120);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(80);
    expect(refused[0].body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('120') });
    expect(limitHeaders(refused[0])).toEqual({ limit: '120', remaining: '0', reset: String(unixSeconds(windowEnd)) });
    expect(refused[0].headers.get('retry-after')).toBe('45');

    clock.set('2026-04-01T12:00:59.400Z');
    const last = await t.request('GET', 'projects', { apiKey: burst.apiKey });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');

    expect((await t.request('GET', 'projects', { apiKey: org.apiKey })).status).toBe(200);

    clock.set(windowEnd);
    const next = await t.request('GET', 'projects', { apiKey: burst.apiKey });
    expect(next.status).toBe(200);
    expect(limitHeaders(next)).toEqual({ limit: '120', remaining: '119', reset: String(unixSeconds('2026-04-01T12:02:00Z')) });
    expect(next.headers.has('retry-after')).toBe(false);
  });

  it('applies 600 to enterprise and a custom per-org limit over the plan’s', async () => {
    const enterprise = await t.createOrg('enterprise', { name: 'Big' });
    expect(limitHeaders(await t.request('GET', 'projects', { apiKey: enterprise.apiKey })).limit).toBe('600');
    await t.app.services.organizations.setRateLimit(enterprise.orgId, 3);
    t.app.grants.forget();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request('GET', 'projects', { apiKey: enterprise.apiKey })).status);
    // The first request of the window was counted under the old limit too: one window, one count.
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe.runIf(needs('redis', 'Redis tests'))('rate limits over HTTP with Redis counters, one process', () => {
  it('lets exactly 120 of 200 simultaneous requests through', async () => {
    const redis = new Redis(redisUrl!);
    // The app's clock stands 20 s into a minute: the burst falls in one window, whenever the test runs.
    const clock = new ManualClock('2026-04-01T12:00:20.000Z');
    const t = await startTestApp('pglite', { clock, limiter: new RateLimiter(new RedisCounterStore(redis, testPrefix())) });
    try {
      const org = await t.createOrg('business');
      const answers = await Promise.all(Array.from({ length: 200 }, () => t.request('GET', 'projects', { apiKey: org.apiKey })));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(120);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(80);
      expect(new Set(refused.map((answer) => answer.headers.get('retry-after')))).toEqual(new Set(['40']));
    } finally {
      await t.close();
    }
  });
});

describe.runIf(needs('postgres', 'PostgreSQL and Redis together') && needs('redis', 'PostgreSQL and Redis together'))('rate limits across two server processes sharing Redis and PostgreSQL', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let servers: ServerProcess[];

  beforeAll(async () => {
    target = await tempPostgresSchema();
    servers = await Promise.all([startServerProcess({ ...target.env, REDIS_URL: redisUrl! }), startServerProcess({ ...target.env, REDIS_URL: redisUrl! })]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await target.drop();
  });

  it('lets exactly 120 of 200 simultaneous requests through, split between the processes', async () => {
    const created = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Shared', '--plan', 'business'], target.env);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(servers[i % 2].url, 'GET', 'projects', { apiKey: created.apiKey })),
    );
    expectExactly(120, answers);
    for (const server of servers) {
      const statuses = answers.filter((_, i) => servers[i % 2] === server).map((answer) => answer.status);
      expect(statuses).toContain(200);
    }
  });
});
