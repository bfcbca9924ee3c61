import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisUrl } from './support/databases.js';
import { expectExactly } from './support/rate-limits.js';
import { call, runCliJson, type ServerProcess, startServerProcess, tempPostgresSchema } from './support/processes.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';
import { needs } from './support/requirements.js';

/** A Redis database of this suite's own, so the process registry of other suites' servers does not count here. */
function ownRedisDatabase(url: string): string {
  const own = new URL(url);
  own.pathname = '/13';
  return own.toString();
}

/**
 * The documented scale-out: two API processes and two workers (VIGIL_ROLE) on one PostgreSQL and
 * one Redis, as an operator runs them behind a load balancer.
 */
describe.runIf(needs('postgres', 'PostgreSQL and Redis together') && needs('redis', 'PostgreSQL and Redis together'))('two API processes and two workers on one PostgreSQL and Redis', () => {
  let target: Awaited<ReturnType<typeof tempPostgresSchema>>;
  let apis: ServerProcess[];
  let workers: ServerProcess[];
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    target = await tempPostgresSchema();
    const shared = {
      ...target.env,
      REDIS_URL: ownRedisDatabase(redisUrl!),
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: testTls().caFile,
      // One attempt's limit, which sets the lease after which a dead worker's attempts go out again.
      VIGIL_WEBHOOK_TIMEOUT_MS: '2000',
    };
    apis = await Promise.all([startServerProcess({ ...shared, VIGIL_ROLE: 'api' }), startServerProcess({ ...shared, VIGIL_ROLE: 'api' })]);
    workers = await Promise.all([startServerProcess({ ...shared, VIGIL_ROLE: 'worker' }), startServerProcess({ ...shared, VIGIL_ROLE: 'worker' })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([...apis, ...workers].map((server) => server.stop('SIGKILL')));
    await target.drop();
    await receiver.close();
  });

  it('keeps an organization’s limit exact over requests spread across both API processes', async () => {
    const { org, apiKey } = await runCliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Limited', '--plan', 'business'], target.env);
    await runCliJson(['org', 'set-rate-limit', org.id, '45'], target.env);
    // Taking turns: each process alone would let 45 through, so 90 accepted would mean unshared counts.
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    for (let i = 0; i < 120; i += 1) answers.push(await call(apis[i % 2].url, 'GET', 'projects', { apiKey }));
    expectExactly(45, answers);
    for (const api of apis) expect(answers.filter((_, i) => apis[i % 2] === api).some((answer) => answer.status === 200)).toBe(true);
  });

  it('loses no delivery when a worker is killed with SIGKILL mid-run, and doubles only what it had in flight', async () => {
    const { apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Delivered', '--plan', 'enterprise'], target.env);
    receiver.respond = () => ({ status: 200, delayMs: 400 });
    const hook = await call(apis[0].url, 'POST', 'webhooks', { apiKey, body: { name: 'all', url: receiver.url('/scale'), events: ['alert.created'] } });
    const webhookId = (hook.body.data as { id: string }).id;
    const project = await call(apis[1].url, 'POST', 'projects', { apiKey, body: { name: 'Fleet' } });
    const projectId = (project.body.data as { id: string }).id;
    const alerts = 80;
    const created = await Promise.all(
      Array.from({ length: alerts }, async (_, i) => {
        const answer = await call(apis[i % 2].url, 'POST', 'alerts', { apiKey, body: { projectId, title: `Node ${i} down`, severity: 'high' } });
        expect(answer.status).toBe(201);
        return (answer.body.data as { id: string }).id;
      }),
    );

    await waitFor(() => receiver.received('/scale').length, (count) => count >= 20, 'deliveries under way');
    const killed = await workers[0].stop('SIGKILL');
    expect(killed.code).toBeNull();
    const receivedBeforeKill = new Set(receiver.received('/scale').map((request) => String(request.headers['webhook-id'])));

    const db = new pg.Client({ connectionString: target.url });
    await db.connect();
    try {
      const deliveries = await waitFor(
        async () => (await db.query<{ id: string; status: string }>('SELECT id, status FROM webhook_deliveries WHERE webhook_id = $1', [webhookId])).rows,
        (rows) => rows.length === alerts && rows.every((row) => row.status === 'delivered'),
        'every delivery delivered after the lease of the killed worker ran out',
        120_000,
      );
      const received = receiver.received('/scale').map((request) => String(request.headers['webhook-id']));
      const alertIds = receiver.received('/scale').map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id);
      expect(new Set(received)).toEqual(new Set(deliveries.map((row) => row.id)));
      expect(new Set(alertIds)).toEqual(new Set(created));

      const doubled = [...new Set(received.filter((id, index) => received.indexOf(id) !== index))];
      for (const id of doubled) {
        expect(received.filter((seen) => seen === id), id).toHaveLength(2);
        expect(receivedBeforeKill.has(id), `${id} was doubled but had not reached the receiver before the kill`).toBe(true);
      }
      expect(received).toHaveLength(alerts + doubled.length);
      process.stdout.write(`scale-out: ${alerts} deliveries, ${doubled.length} received twice (in flight in the killed worker)\n`);
    } finally {
      await db.end();
    }
  }, 180_000);
});
