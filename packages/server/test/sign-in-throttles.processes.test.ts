import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl, redisUrl } from './support/databases.js';
import { runCliJson, type ServerProcess, startServerProcess, tempPostgresSchema } from './support/processes.js';
import { linkToken } from './support/sessions.js';

const password = 'correct horse battery';
const sessionLimit = 10;

/** A Redis database of this suite's own, so the process registry of other suites' servers does not count here. */
function ownRedisDatabase(url: string): string {
  const own = new URL(url);
  own.pathname = '/12';
  return own.toString();
}

async function post(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/api/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Two API processes on one PostgreSQL and one Redis behind a trusted proxy, as the operations guide
 * runs them: the sign-in throttle and a session's rate limit hold across both.
 */
describe.runIf(postgresUrl && redisUrl)('sign-in throttles and session limits across two API processes', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let apis: ServerProcess[];
  let founder: string;

  beforeAll(async () => {
    target = await tempPostgresSchema();
    const created = await runCliJson<{ inviteUrl: string }>(['org', 'create', '--name', 'Throttled', '--plan', 'free', '--admin-email', 'founder@example.com'], target.env);
    const shared = { ...target.env, REDIS_URL: ownRedisDatabase(redisUrl!), VIGIL_TRUST_PROXY: '127.0.0.1/8', VIGIL_SESSION_RATE_LIMIT: String(sessionLimit) };
    apis = await Promise.all([startServerProcess({ ...shared, VIGIL_ROLE: 'api' }), startServerProcess({ ...shared, VIGIL_ROLE: 'api' })]);
    const accepted = await post(apis[0].url, 'session/link/accept', { token: linkToken(created.inviteUrl), password });
    expect(accepted.status).toBe(200);
    founder = accepted.headers.get('set-cookie')!.split(';')[0];
  }, 120_000);
  afterAll(async () => {
    await Promise.all(apis.map((server) => server.stop('SIGKILL')));
    await target.drop();
  });

  it('checks at most 5 of 100 parallel wrong passwords for one account spread over both processes', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        post(apis[index % 2].url, 'session', { email: 'founder@example.com', password: `wrong password ${index}` }, { 'x-forwarded-for': `198.51.100.${index}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401).length).toBe(5);
    expect(statuses.filter((status) => status === 429).length).toBe(95);
    expect((await post(apis[1].url, 'session', { email: 'founder@example.com', password }, { 'x-forwarded-for': '198.51.100.200' })).status).toBe(429);
  });

  it('counts a session\'s requests across both processes', async () => {
    const answered = new Map<string, number[]>();
    for (let request = 0; request < 2 * sessionLimit + 2; request++) {
      const response = await fetch(`${apis[request % 2].url}/api/v1/projects`, { headers: { cookie: founder } });
      const window = response.headers.get('x-ratelimit-reset')!;
      answered.set(window, [...(answered.get(window) ?? []), response.status]);
    }
    // Each process alone would let 2 × the limit through; a minute that begins mid-run starts a window of its own.
    for (const statuses of answered.values()) {
      expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(sessionLimit);
      expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    }
    expect([...answered.values()].flat().filter((status) => status === 429).length).toBeGreaterThan(0);
  });
});
