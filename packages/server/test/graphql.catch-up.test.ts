import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriber, type Subscriber } from './support/graphql.js';
import { postgresBinDir, type PostgresServer, startPostgresServer } from './support/postgres-server.js';
import { childSecretKey, runCliJson, type ServerProcess, startServerProcess } from './support/processes.js';
import { waitFor } from './support/webhooks/wait.js';

const subscribersPerProcess = 25;
/** Child processes start slowly on a loaded machine: more than the default hook timeout. */
const startupTimeoutMs = 240_000;

/**
 * A PostgreSQL server of the test's own, restarted while alerts are created at about 20 a second:
 * the committed-events listeners of both API processes lose their sessions, and must read back from
 * the events table what was committed meanwhile.
 */
describe.runIf(postgresBinDir)('GraphQL subscriptions across a PostgreSQL restart, two API processes', () => {
  let postgres: PostgresServer;
  let a: ServerProcess;
  let b: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    postgres = await startPostgresServer();
    const env = { DATABASE_URL: postgres.url, VIGIL_SECRET_KEY: childSecretKey, VIGIL_DB_CONNECT_TIMEOUT_MS: '500' };
    a = await startServerProcess(env);
    b = await startServerProcess({ ...env, VIGIL_ROLE: 'api' });
    ({ apiKey } = await runCliJson<{ apiKey: string }>(['org', 'create', '--name', 'Restarted', '--plan', 'business'], env));
   }, startupTimeoutMs);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await postgres?.remove();
  });

  it('delivers every alert committed around the restart to every subscriber exactly once, in order', async () => {
    const rest = (path: string, init: RequestInit = {}) =>
      fetch(`${a.url}/api/v1/${path}`, { ...init, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } });
    const projectId = ((await (await rest('projects', { method: 'POST', body: JSON.stringify({ name: 'Restart' }) })).json()) as { data: { id: string } }).data.id;

    const subscribers: { client: Subscriber; received: string[] }[] = [];
    for (const server of [a, b]) {
      for (let i = 0; i < subscribersPerProcess; i++) {
        const entry = { client: subscriber(server.url, apiKey), received: [] as string[] };
        entry.client.client.subscribe<{ alertCreated: { id: string } }>(
          { query: 'subscription { alertCreated { id } }' },
          { next: (result) => void entry.received.push(result.data!.alertCreated.id), error: () => undefined, complete: () => undefined },
        );
        subscribers.push(entry);
      }
    }
    const createdIds: string[] = [];
    let created = 0;
    const create = async () => {
      const response = await rest('alerts', { method: 'POST', body: JSON.stringify({ projectId, title: `Alert ${created}`, severity: 'low' }) }).catch(() => undefined);
      if (response?.status !== 201) return void (await response?.arrayBuffer());
      created++;
      createdIds.push(((await response.json()) as { data: { id: string } }).data.id);
    };
    // Every subscription is registered once one alert reached them all.
    await waitFor(
      async () => {
        await create();
        return subscribers.every((entry) => entry.received.length > 0);
      },
      (all) => all,
      'every subscriber to receive an alert',
    );
    // What they had until then (each subscription registered at its own moment) is not this test's.
    const lastWarmUp = createdIds.at(-1)!;
    await waitFor(() => subscribers.every((entry) => entry.received.includes(lastWarmUp)), (all) => all, 'the last warm-up alert everywhere');
    const warmUp = new Set(createdIds);
    for (const entry of subscribers) entry.received.length = 0;

    let generating = true;
    const generator = (async () => {
      while (generating) {
        await create();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await waitFor(() => created, (n) => n >= 20, 'alerts before the restart');
    await postgres.stop();
    await postgres.start();
    const afterRestart = created;
    await waitFor(() => created, (n) => n >= afterRestart + 20, 'alerts after the restart');
    generating = false;
    await generator;

    const committed: string[] = [];
    for (let cursor: string | null = null; ; ) {
      const page = (await (await rest(`alerts?projectId=${projectId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json()) as {
        data: { id: string }[];
        meta: { nextCursor: string | null };
      };
      committed.push(...page.data.map((alert) => alert.id));
      if (!page.meta.nextCursor) break;
      cursor = page.meta.nextCursor;
    }
    const inOrder = committed.reverse().filter((id) => !warmUp.has(id));
    await waitFor(
      () => subscribers.map((entry) => entry.received.length),
      (counts) => counts.every((count) => count >= inOrder.length),
      'every subscriber to have every alert',
    );
    for (const entry of subscribers) expect(entry.received).toEqual(inOrder);
    await Promise.all(subscribers.map((entry) => entry.client.client.dispose()));
  });
});
