import { deepStrictEqual } from 'node:assert';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { assertAllAnswered, autocannonLoad, type LoadResult, type LoadTarget } from './support/load.js';
import { type BenchMode, fullRun, sized } from './support/mode.js';
import { benchDatabase } from './support/postgres.js';
import { startServer, vigilServe } from './support/processes.js';
import { seedAlerts } from './support/seed.js';

const connections = 50;
interface Sizes {
  durationSeconds: number;
  warmUpSeconds: number;
  subscribers: number;
  fanOutEvents: number;
}
const benchSecretKey = 'bench-secret-key-0123456789abcdef0123456789';
const alertsQuery = '{ alerts(first: 20) { id title severity status createdAt } }';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => value.toFixed(1);

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

async function json(target: LoadTarget): Promise<unknown> {
  const response = await fetch(target.url, {
    method: target.body === undefined ? 'GET' : 'POST',
    headers: target.headers,
    body: target.body,
  });
  if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function createAlert(baseUrl: string, apiKey: string, projectId: string, title: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/alerts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ projectId, title, severity: 'high' }),
  });
  return ((await response.json()) as { data: { id: string } }).data.id;
}

/**
 * `subscribers` graphql-ws clients on alertCreated; each alert created over REST is timed from the
 * moment its POST is sent to the moment each subscriber has it.
 */
async function fanOut(baseUrl: string, apiKey: string, { subscribers, fanOutEvents }: Sizes): Promise<{ untilAll: number[]; perSubscriber: number[] }> {
  const project = await fetch(`${baseUrl}/api/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Fan-out' }),
  });
  const projectId = ((await project.json()) as { data: { id: string } }).data.id;
  const clients: Client[] = [];
  const arrivals = new Map<string, number[]>();
  const failed = (error: unknown) =>
    process.stderr.write(`graphql: subscriber failed: ${(error as { code?: number }).code ?? ''} ${(error as { reason?: string }).reason ?? String(error)}\n`);
  for (let index = 0; index < subscribers; index++) {
    let onConnected: () => void = () => undefined;
    const connected = new Promise<void>((resolve) => (onConnected = resolve));
    const client = createClient({
      url: `${baseUrl.replace(/^http/, 'ws')}/api/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${apiKey}` },
      retryAttempts: 0,
      on: { connected: () => onConnected() },
    });
    client.subscribe<{ alertCreated: { id: string } }>(
      { query: 'subscription { alertCreated { id title } }' },
      {
        next: (result) => {
          const id = result.data!.alertCreated.id;
          arrivals.set(id, [...(arrivals.get(id) ?? []), performance.now()]);
        },
        error: failed,
        complete: () => undefined,
      },
    );
    clients.push(client);
    // Connected in groups, as clients arrive in life, rather than 1,000 handshakes in the same millisecond.
    if (index % 50 === 49) await connected;
  }
  const allHave = async (id: string, timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while ((arrivals.get(id)?.length ?? 0) < subscribers && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
    return (arrivals.get(id)?.length ?? 0) >= subscribers;
  };
  try {
    // Warm-up: until every subscription is registered, an alert does not reach all of them.
    for (let attempt = 0; ; attempt++) {
      if (await allHave(await createAlert(baseUrl, apiKey, projectId, 'warm-up'), 2_000)) break;
      if (attempt === 30) throw new Error('the subscribers never all received an alert');
    }
    const untilAll: number[] = [];
    const perSubscriber: number[] = [];
    for (let index = 0; index < fanOutEvents; index++) {
      const sent = performance.now();
      const id = await createAlert(baseUrl, apiKey, projectId, `fan-out ${index}`);
      if (!(await allHave(id, 10_000))) throw new Error(`alert ${index} did not reach every subscriber`);
      const times = arrivals.get(id)!.map((at) => at - sent);
      untilAll.push(Math.max(...times));
      perSubscriber.push(...times);
    }
    return { untilAll, perSubscriber };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
  }
}

/**
 * One Vigil process (`VIGIL_ROLE=api`) on PostgreSQL: the REST alert list and the same list as a
 * GraphQL query, each saturated in turn by autocannon; then the subscription fan-out.
 */
export async function runGraphqlBench(mode: BenchMode = fullRun): Promise<string> {
  const sizes = sized<Sizes>(
    mode,
    { durationSeconds: 10, warmUpSeconds: 3, subscribers: 1_000, fanOutEvents: 20 },
    { durationSeconds: 1, warmUpSeconds: 0, subscribers: 20, fanOutEvents: 2 },
  );
  const { durationSeconds, subscribers, fanOutEvents } = sizes;
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-graphql-'));
  const database = await benchDatabase();
  const env: Record<string, string> = {
    VIGIL_SECRET_KEY: process.env.VIGIL_SECRET_KEY ?? benchSecretKey,
    VIGIL_DATA_DIR: path.join(workDir, 'vigil-data'),
    VIGIL_ROLE: 'api',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    // The fan-out's subscribers share one key: one socket each, more than a key may open by default.
    VIGIL_GRAPHQL_MAX_SOCKETS: String(subscribers),
  };
  const server = await startServer({ name: 'Vigil', ...vigilServe, env, logFile: path.join(workDir, 'vigil.log'), readyPath: '/readyz' });
  try {
    process.stderr.write('graphql: seeding\n');
    const org = await seedAlerts(server.url, env, 25);
    const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
    const rest: LoadTarget = { url: `${server.url}/api/v1/alerts`, headers };
    const graphql: LoadTarget = { url: `${server.url}/api/graphql`, headers, body: JSON.stringify({ query: alertsQuery }) };
    const restBody = (await json(rest)) as { data: Record<string, unknown>[] };
    const graphqlBody = (await json(graphql)) as { data: { alerts: Record<string, unknown>[] } };
    deepStrictEqual(
      graphqlBody.data.alerts.map((alert) => alert.id),
      restBody.data.map((alert) => alert.id),
      'GraphQL and REST must list the same alerts',
    );
    const results: Record<string, LoadResult> = {};
    for (const [name, target] of [['REST', rest], ['GraphQL', graphql], ['REST again', rest], ['GraphQL again', graphql]] as const) {
      process.stderr.write(`graphql: ${name}\n`);
      if (sizes.warmUpSeconds > 0) await autocannonLoad(target, connections, sizes.warmUpSeconds);
      results[name] = await autocannonLoad(target, connections, durationSeconds);
    }
    process.stderr.write(`graphql: fan-out to ${subscribers} subscribers\n`);
    assertAllAnswered('graphql', Object.values(results));
    const fan = await fanOut(server.url, org.apiKey, sizes);
    const restRate = (results.REST.requestsPerSecond + results['REST again'].requestsPerSecond) / 2;
    const graphqlRate = (results.GraphQL.requestsPerSecond + results['GraphQL again'].requestsPerSecond) / 2;
    const share = graphqlRate / restRate;
    const p99 = percentile(fan.untilAll, 0.99);
    return [
      `### GraphQL: \`${alertsQuery}\` vs REST \`GET /api/v1/alerts\` (20 items), and subscription fan-out`,
      '',
      `- PostgreSQL ${database.serverVersion} (${database.origin}); one Vigil process, \`VIGIL_ROLE=api\`, pino at \`info\` to a file; ` +
        `autocannon, ${connections} connections, ${sizes.warmUpSeconds} s warm-up then ${durationSeconds} s per case, REST and GraphQL alternated twice. ` +
        'GraphQL is a POST with a JSON body; both lists carry the same alerts (checked before measuring).',
      '',
      '| case | saturated req/s | p50 ms | p99 ms | failed |',
      '|---|---:|---:|---:|---:|',
      ...Object.entries(results).map(
        ([name, result]) => `| ${name} | ${count(result.requestsPerSecond)} | ${ms(result.p50Ms)} | ${ms(result.p99Ms)} | ${result.failures} |`,
      ),
      '',
      `- GraphQL ÷ REST, saturated req/s (means of the two runs): **${share.toFixed(2)}** (target ≥ 0.70) — ${share >= 0.7 ? 'met' : '**not met**'}`,
      `- Fan-out: ${count(subscribers)} graphql-ws subscribers on \`alertCreated\` in the load process, ${fanOutEvents} alerts created one ` +
        'at a time over REST; time from sending the POST until every subscriber has the alert: ' +
        `p50 **${ms(percentile(fan.untilAll, 0.5))} ms**, p99 **${ms(p99)} ms**, max ${ms(Math.max(...fan.untilAll))} ms ` +
        `(target p99 ≤ 250 ms — ${p99 <= 250 ? 'met' : '**not met**'}); per subscriber p50 ${ms(percentile(fan.perSubscriber, 0.5))} ms.`,
    ].join('\n');
  } finally {
    await server.stop();
  }
}
