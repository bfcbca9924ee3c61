import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../src/db/connect.js';
import { LastUsedRecorder } from '../src/modules/api-keys/last-used.js';
import { startTestApp, ManualClock, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { call, runCli, runCliJson, type ServerProcess, startServerProcess, tempPostgresSchema } from './support/processes.js';
import { needs } from './support/requirements.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const rateLimitHeaders = (headers: Headers) =>
  ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].filter((name) => headers.has(name));

describe.each(databaseKinds())('API keys on %s', (kind) => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestOrg;

  beforeAll(async () => {
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    t = await startTestApp(kind, { clock });
  });
  // Each test has an organization of its own: keys, events and counts of another test are not in its way.
  beforeEach(async () => {
    org = await t.createOrg('business');
  });
  afterAll(() => t.close());

  const events = (orgId: string, type: string) =>
    t.database.db.query<{ data: Record<string, unknown> }>('SELECT data FROM events WHERE org_id = $1 AND type = $2 ORDER BY id', [orgId, type]);

  it('issues svc_live_ + 64 lowercase hex and stores only its SHA-256 hash', async () => {
    expect(org.apiKey).toMatch(/^svc_live_[0-9a-f]{64}$/);
    const rows = await t.database.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE org_id = $1', [org.orgId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(sha256(org.apiKey));
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(org.apiKey);
    expect(stored).not.toContain(org.apiKey.slice('svc_live_'.length));
    const response = await t.request('GET', 'projects', { apiKey: org.apiKey });
    expect(response.status).toBe(200);
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing after it', 'Bearer '],
    ['the wrong prefix', `Bearer svc_test_${'a'.repeat(64)}`],
    ['63 hex characters', `Bearer svc_live_${'a'.repeat(63)}`],
    ['65 hex characters', `Bearer svc_live_${'a'.repeat(65)}`],
    ['uppercase hex', `Bearer svc_live_${'A'.repeat(64)}`],
    ['a well-formed key nobody issued', `Bearer svc_live_${'0'.repeat(64)}`],
  ])('answers 401 UNAUTHORIZED for %s, in the error format, without rate-limit headers', async (_case, authorization) => {
    const response = await t.request<{ error: string; code: string; requestId: string }>('GET', 'projects', {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED', requestId: response.headers.get('x-request-id') });
    expect(rateLimitHeaders(response.headers)).toEqual([]);
  });

  it('answers 401 for an unknown path too when the key is missing', async () => {
    const response = await t.request('GET', 'no-such-thing');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('stops accepting a revoked key within one second, and records api_key.created / api_key.deleted', async () => {
    const created = await t.app.services.apiKeys.create(org.orgId, { name: 'CI' });
    expect((await t.request('GET', 'projects', { apiKey: created.apiKey })).status).toBe(200);
    // Revoked as another process would (no word to this one's key cache): one second on the app's clock later, refused.
    await t.app.services.apiKeys.revoke(created.key.id);
    const revokedAt = clock.now().toISOString();
    clock.advance(1000);
    const response = await t.request('GET', 'projects', { apiKey: created.apiKey });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'UNAUTHORIZED' });

    const createdEvents = await events(org.orgId, 'api_key.created');
    expect(createdEvents.map((event) => event.data.id)).toEqual([org.keyId, created.key.id]);
    expect(createdEvents[1].data).toMatchObject({ id: created.key.id, name: 'CI', revokedAt: null, prefix: created.apiKey.slice(0, 15) + '…' });
    const deletedEvents = await events(org.orgId, 'api_key.deleted');
    expect(deletedEvents).toHaveLength(1);
    expect(deletedEvents[0].data).toMatchObject({ id: created.key.id, revokedAt });
    const allEvents = JSON.stringify(await t.database.db.query('SELECT data FROM events'));
    expect(allEvents).not.toContain(created.apiKey.slice('svc_live_'.length));
    expect(allEvents).not.toContain(sha256(created.apiKey));
  });

  it('rejects a key after its expiry time (expiry is optional, per key)', async () => {
    const expiring = await t.app.services.apiKeys.create(org.orgId, { expiresAt: new Date(clock.now().getTime() + 60 * 60_000) });
    expect((await t.request('GET', 'projects', { apiKey: expiring.apiKey })).status).toBe(200);
    clock.advance(60 * 60_000 - 1);
    expect((await t.request('GET', 'projects', { apiKey: expiring.apiKey })).status).toBe(200);
    clock.advance(1);
    const expired = await t.request('GET', 'projects', { apiKey: expiring.apiKey });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/expired/) });
    expect((await t.request('GET', 'projects', { apiKey: org.apiKey })).status).toBe(200);
  });

  it.each(['free', 'starter', 'pro', 'team'] as const)(
    'answers 403 PLAN_UPGRADE_REQUIRED to a %s organization on every call, unknown paths included',
    async (plan) => {
      const below = await t.createOrg(plan, { name: `On ${plan}` });
      const calls: [string, string, unknown?][] = [
        ['GET', 'projects'],
        ['POST', 'projects', { name: 'Try' }],
        ['GET', 'alerts'],
        ['DELETE', 'projects/proj_01hzzzzzzzzzzzzzzzzzzzzzzz'],
        ['GET', 'no-such-thing'],
        ['POST', 'projects', 'not even an object'],
      ];
      for (const [method, route, body] of calls) {
        const response = await t.request<{ code: string; error: string }>(method, route, { apiKey: below.apiKey, body });
        expect(response.status, `${method} ${route}`).toBe(403);
        expect(response.body).toMatchObject({ code: 'PLAN_UPGRADE_REQUIRED', error: expect.stringContaining(plan) });
        expect(rateLimitHeaders(response.headers)).toEqual([]);
      }
    },
  );

  it.each([
    ['business', 120],
    ['enterprise', 600],
  ] as const)('lets a %s organization through, with its limit of %i per minute', async (plan, limit) => {
    const allowed = await t.createOrg(plan, { name: `On ${plan}` });
    const response = await t.request('GET', 'projects', { apiKey: allowed.apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  });

  it('checks in the order 401 → 403 → 429 → route', async () => {
    const limited = await t.createOrg('business', { name: 'Limited', rateLimitPerMinute: 2 });
    const second = await t.app.services.apiKeys.create(limited.orgId);
    await t.app.services.apiKeys.revoke(second.key.id);
    for (let i = 0; i < 2; i++) expect((await t.request('GET', 'projects', { apiKey: limited.apiKey })).status).toBe(200);

    const exhausted = await t.request('GET', 'no-such-thing', { apiKey: limited.apiKey });
    expect(exhausted.status).toBe(429);
    expect(exhausted.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await t.request('GET', 'projects', { apiKey: `svc_live_${'f'.repeat(64)}` })).status).toBe(401);
    expect((await t.request('GET', 'projects', { apiKey: second.apiKey })).status).toBe(401);
    expect((await t.request('GET', 'projects', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);

    const free = await t.createOrg('free', { name: 'Free with a limit', rateLimitPerMinute: 1 });
    for (let i = 0; i < 4; i++) {
      const response = await t.request('GET', 'projects', { apiKey: free.apiKey });
      expect(response.status).toBe(403);
    }

    clock.advance(60_000);
    const unknown = await t.request('GET', 'no-such-thing', { apiKey: limited.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records lastUsedAt in a batch, not with a write per request', async () => {
    const own = await startTestApp(kind, { clock: new ManualClock('2026-03-02T08:00:00.000Z') });
    try {
      const used = await own.createOrg('business');
      const idle = await own.app.services.apiKeys.create(used.orgId, { name: 'Idle' });
      for (let i = 0; i < 5; i++) {
        (own.clock as ManualClock).advance(1000);
        expect((await own.request('GET', 'projects', { apiKey: used.apiKey })).status).toBe(200);
      }
      const lastUsed = () =>
        own.database.db.query<{ id: string; last_used_at: Date | null }>('SELECT id, last_used_at FROM api_keys ORDER BY id');
      expect((await lastUsed()).map((row) => row.last_used_at)).toEqual([null, null]);
      await own.app.close();
      expect(await lastUsed()).toEqual([
        { id: used.keyId, last_used_at: new Date('2026-03-02T08:00:05.000Z') },
        { id: idle.key.id, last_used_at: null },
      ]);
    } finally {
      await own.database.drop();
    }
  });
});

describe('the lastUsedAt recorder', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes many uses of several keys in one statement per interval, keeping the latest time', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const statements: unknown[][] = [];
    const db: Queryable = {
      query: async <Row>(_sql: string, params: readonly unknown[] = []) => {
        statements.push([...params]);
        return [] as Row[];
      },
      exec: async () => undefined,
    };
    const recorder = new LastUsedRecorder(db, 50);
    for (let second = 0; second < 300; second++) {
      recorder.touch(`key_${second % 3}`, new Date(Date.UTC(2026, 0, 1, 0, 0, second)));
    }
    await vi.advanceTimersByTimeAsync(50);
    expect(statements).toEqual([
      [
        ['key_0', 'key_1', 'key_2'],
        [new Date('2026-01-01T00:04:57.000Z'), new Date('2026-01-01T00:04:58.000Z'), new Date('2026-01-01T00:04:59.000Z')],
      ],
    ]);
    recorder.touch('key_0', new Date('2026-01-01T01:00:00.000Z'));
    await recorder.close();
    expect(statements).toHaveLength(2);
  });
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('revocation and plan changes across two server processes on PostgreSQL', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let servers: ServerProcess[];

  beforeAll(async () => {
    target = await tempPostgresSchema();
    // Started together on an empty schema: both migrate at once.
    servers = await Promise.all([startServerProcess(target.env), startServerProcess(target.env)]);
  });
  afterAll(async () => {
    const exits = await Promise.all(servers.map((server) => server.stop()));
    expect(exits.map((exit) => exit.code)).toEqual([0, 0]);
    await target.drop();
  });

  /**
   * Asks both processes until they answer `status`; the answers to requests sent once one second
   * has passed since the call are final, however long earlier ones took on a loaded machine.
   */
  async function answersWithinOneSecond(apiKey: string, status: number): Promise<number[]> {
    const deadline = Date.now() + 1000;
    for (;;) {
      const sentAt = Date.now();
      const answers = await Promise.all(servers.map(async (server) => (await call(server.url, 'GET', 'projects', { apiKey })).status));
      if (answers.every((answer) => answer === status) || sentAt >= deadline) return answers;
      await sleep(25);
    }
  }

  it('vigil key revoke: every process answers 401 within one second', async () => {
    const created = await runCliJson<{ org: { id: string }; apiKey: string; keyId: string }>(
      ['org', 'create', '--name', 'Two processes', '--plan', 'business'],
      target.env,
    );
    const second = await runCliJson<{ id: string; apiKey: string }>(['key', 'create', '--org', created.org.id, '--name', 'Spare'], target.env);
    expect(await answersWithinOneSecond(created.apiKey, 200)).toEqual([200, 200]);
    expect(await answersWithinOneSecond(second.apiKey, 200)).toEqual([200, 200]);

    const revoke = await runCli(['key', 'revoke', created.keyId], target.env);
    expect(revoke).toMatchObject({ code: 0, stdout: `Revoked ${created.keyId}.\n` });
    expect(await answersWithinOneSecond(created.apiKey, 401)).toEqual([401, 401]);
    expect(await answersWithinOneSecond(second.apiKey, 200)).toEqual([200, 200]);

    const downgrade = await runCli(['org', 'set-plan', created.org.id, 'team'], target.env);
    expect(downgrade.code).toBe(0);
    expect(await answersWithinOneSecond(second.apiKey, 403)).toEqual([403, 403]);
  });
});
