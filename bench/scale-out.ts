import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assertAllAnswered, autocannonLoad, type LoadResult, type LoadTarget } from './support/load.js';
import { type BenchMode, fullRun, sized } from './support/mode.js';
import { benchDatabase } from './support/postgres.js';
import { type RunningServer, startServer, vigilServe } from './support/processes.js';
import { seedAlerts } from './support/seed.js';

const connections = 50;
const benchSecretKey = 'bench-secret-key-0123456789abcdef0123456789';
/** A Redis database of the benchmark's own, so no other process's rate-limit registry counts. */
const defaultRedisUrl = 'redis://127.0.0.1:6379/14';

interface Route {
  name: string;
  path: string;
  body?: string;
}

interface Measured {
  route: string;
  processes: number;
  round: number;
  result: LoadResult;
}

/** The same load over the given processes, the connections split evenly between them (a round-robin client). */
async function loadOver(servers: RunningServer[], route: Route, apiKey: string, seconds: number): Promise<LoadResult> {
  const targets: LoadTarget[] = servers.map((server) => ({
    url: `${server.url}${route.path}`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: route.body,
  }));
  const results = await Promise.all(targets.map((target) => autocannonLoad(target, connections / servers.length, seconds)));
  const sum = (pick: (result: LoadResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  return {
    requests: sum((result) => result.requests),
    requestsPerSecond: sum((result) => result.requestsPerSecond),
    // The slower process's percentiles: what a client spread over both sees at worst.
    p50Ms: Math.max(...results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    failures: sum((result) => result.failures),
  };
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const meanRate = (rows: Measured[]) => rows.reduce((total, row) => total + row.result.requestsPerSecond, 0) / rows.length;

/**
 * Two stateless API processes (`VIGIL_ROLE=api`) on one PostgreSQL and one Redis against one of
 * them, in the same run: authenticated alert creation and the alert list, saturated with 50
 * connections, split evenly over the two processes in the second case.
 */
export async function runScaleOutBench(mode: BenchMode = fullRun): Promise<string> {
  const durationSeconds = sized(mode, 10, 1);
  const warmUpSeconds = sized(mode, 3, 0);
  const rounds = sized(mode, 2, 1);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-scale-out-'));
  const database = await benchDatabase('vigil_bench_scale_out');
  const redisUrl = process.env.REDIS_URL ?? defaultRedisUrl;
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    VIGIL_SECRET_KEY: process.env.VIGIL_SECRET_KEY ?? benchSecretKey,
    VIGIL_DATA_DIR: path.join(workDir, 'vigil-data'),
    VIGIL_ROLE: 'api',
    LOG_LEVEL: 'warn',
  };
  const spec = { ...vigilServe, env, readyPath: '/readyz' };
  const servers = [
    await startServer({ ...spec, name: 'api-1', logFile: path.join(workDir, 'api-1.log') }),
    await startServer({ ...spec, name: 'api-2', logFile: path.join(workDir, 'api-2.log') }),
  ];
  const measured: Measured[] = [];
  try {
    const org = await seedAlerts(servers[0].url, env, 20);
    const projects = (await (await fetch(`${servers[0].url}/api/v1/projects`, { headers: { authorization: `Bearer ${org.apiKey}` } })).json()) as {
      data: { id: string }[];
    };
    const routes: Route[] = [
      { name: 'GET /api/v1/alerts (20 items)', path: '/api/v1/alerts' },
      {
        name: 'POST /api/v1/alerts',
        path: '/api/v1/alerts',
        body: JSON.stringify({ projectId: projects.data[0].id, title: 'Temperature above threshold', severity: 'high', area: 'north' }),
      },
    ];
    for (const route of routes) {
      process.stderr.write(`scale-out: ${route.name}\n`);
      if (warmUpSeconds > 0) await loadOver(servers, route, org.apiKey, warmUpSeconds);
      // Taking turns, so that a machine whose load drifts during the run weighs on both cases alike.
      for (let round = 1; round <= rounds; round++) {
        for (const processes of [1, 2]) {
          const result = await loadOver(servers.slice(0, processes), route, org.apiKey, durationSeconds);
          assertAllAnswered(`scale-out ${route.name}, ${processes} process(es)`, [result]);
          measured.push({ route: route.name, processes, round, result });
        }
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  const ratios = [...new Set(measured.map((row) => row.route))].map((route) => {
    const of = (processes: number) => measured.filter((row) => row.route === route && row.processes === processes);
    return `- ${route}: two processes ÷ one, mean req/s of the ${rounds} rounds: **${(meanRate(of(2)) / meanRate(of(1))).toFixed(2)}**`;
  });
  return [
    '### Scale-out: one API process against two, on one PostgreSQL and Redis',
    '',
    `- PostgreSQL ${database.serverVersion} (${database.origin}), Redis at ${redisUrl} for the shared rate-limit counters; everything on this machine.`,
    `- Two \`VIGIL_ROLE=api\` processes started alike; an enterprise org with a limit no run reaches. Per route: autocannon, ${connections} ` +
      `connections, ${warmUpSeconds} s warm-up over both processes, then ${rounds} rounds of ${durationSeconds} s through one process and ` +
      `${durationSeconds} s through both (${connections / 2} connections to each, a round-robin client). p50/p99 through both: the slower process's.`,
    '',
    '| route | processes | round | req/s | p50 ms | p99 ms | failed |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...measured.map(
      ({ route, processes, round, result }) =>
        `| ${route} | ${processes} | ${round} | ${count(result.requestsPerSecond)} | ${result.p50Ms.toFixed(2)} | ${result.p99Ms.toFixed(2)} | ${result.failures} |`,
    ),
    '',
    ...ratios,
  ].join('\n');
}
