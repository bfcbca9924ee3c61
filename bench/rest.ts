import { deepStrictEqual } from 'node:assert';
import { cp, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertAllAnswered, autocannonLoad, type LoadResult, type LoadTarget, pacedLoadApart } from './support/load.js';
import { benchDatabase } from './support/postgres.js';
import { type ServerSpec, startServer, vigilServe } from './support/processes.js';
import { seedAlerts } from './support/seed.js';

export interface RestBenchOptions {
  /** Vigil on embedded PGlite instead of PostgreSQL (the targets are set on PostgreSQL). */
  pglite?: boolean;
  /** Seconds per measured case; the warm-up is a third of it. */
  durationSeconds?: number;
  /** Writes a V8 CPU profile of Vigil's measured run into this directory. */
  profileDir?: string;
  /** One second per step, whatever `durationSeconds` says (see support/mode.ts). */
  smoke?: boolean;
}

const connections = 50;
const fixedRate = 1_000;
const listedAlerts = 20;
const benchSecretKey = 'bench-secret-key-0123456789abcdef0123456789';

interface Case {
  name: string;
  spec: Omit<ServerSpec, 'logFile'>;
  path: string;
  headers?: Record<string, string>;
}

interface Measured {
  name: string;
  saturated: LoadResult;
  /** The server process's own CPU time per request while saturated: what it costs, apart from the database. */
  cpuMicrosPerRequest: number;
  /** One request every millisecond: the steady 1,000 req/s the latency target is about. */
  paced: LoadResult;
  /** autocannon's own `overallRate`, for comparison: each second's requests leave in a burst. */
  burst: LoadResult;
}

async function fetchBody(target: LoadTarget): Promise<unknown> {
  const response = await fetch(target.url, { headers: target.headers });
  if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function measure(bench: Case, logFile: string, durationSeconds: number, smoke: boolean): Promise<{ result: Measured; body: unknown }> {
  process.stderr.write(`rest: ${bench.name}\n`);
  const server = await startServer({ ...bench.spec, logFile });
  try {
    const target = { url: `${server.url}${bench.path}`, headers: bench.headers };
    const body = await fetchBody(target);
    if (!smoke) await autocannonLoad(target, connections, warmUpSeconds(durationSeconds));
    const cpuBefore = server.cpuSeconds();
    const saturated = await autocannonLoad(target, connections, durationSeconds);
    const cpuMicrosPerRequest = ((server.cpuSeconds() - cpuBefore) * 1e6) / saturated.requests;
    // The steady case starts once the server has settled after saturation: traced request by
    // request, most of the hello-world server's slow answers and a quarter of the minimal route's
    // came in its first half second otherwise (BENCHMARKS.md, 2026-11-27 evening).
    if (!smoke) await sleep(settleMs);
    const paced = await pacedLoadApart(target, fixedRate, connections, durationSeconds, steadyWarmUpSeconds);
    const burst = await autocannonLoad(target, connections, durationSeconds, fixedRate);
    assertAllAnswered(bench.name, [saturated, paced, burst]);
    return { result: { name: bench.name, saturated, cpuMicrosPerRequest, paced, burst }, body };
  } finally {
    await server.stop();
  }
}

const settleMs = 2000;
/** The steady load's first second, unrecorded: its new process's own start (pacedLoad). */
const steadyWarmUpSeconds = 1;
const warmUpSeconds = (durationSeconds: number) => Math.max(1, Math.round(durationSeconds / 3));
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => value.toFixed(2);
const ratio = (value: number) => value.toFixed(2);

function table(rows: Measured[]): string {
  const latency = (result: LoadResult) => `${ms(result.p50Ms)} | ${ms(result.p99Ms)}`;
  return [
    '| server | saturated req/s | p50 ms | p99 ms | server CPU µs/req | steady 1,000/s: req/s | p50 ms | p99 ms | autocannon -R 1000: p50 ms | p99 ms | failed |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ name, saturated, cpuMicrosPerRequest, paced, burst }) =>
        `| ${name} | ${count(saturated.requestsPerSecond)} | ${latency(saturated)} | ${count(cpuMicrosPerRequest)} | ` +
        `${count(paced.requestsPerSecond)} | ${latency(paced)} | ` +
        `${latency(burst)} | ${saturated.failures + paced.failures + burst.failures} |`,
    ),
  ].join('\n');
}

function verdicts(hello: Measured, minimal: Measured, vigil: Measured, onPostgres: boolean): string {
  const share = vigil.saturated.requestsPerSecond / minimal.saturated.requestsPerSecond;
  const met = (ok: boolean) => (onPostgres ? (ok ? ' — met' : ' — **not met**') : ' (targets are set on PostgreSQL)');
  return [
    `- Vigil ÷ minimal route, saturated req/s: **${ratio(share)}** (target ≥ 0.90)${met(share >= 0.9)}`,
    `- Vigil p99 at a steady ${count(fixedRate)} req/s: **${ms(vigil.paced.p99Ms)} ms** (target ≤ 5 ms)${met(vigil.paced.p99Ms <= 5)}; ` +
      `the hello world's in the same run ${ms(hello.paced.p99Ms)} ms, the minimal route's ${ms(minimal.paced.p99Ms)} ms`,
    `- minimal route ÷ hello world, saturated req/s: ${ratio(minimal.saturated.requestsPerSecond / hello.saturated.requestsPerSecond)} (what the query and its JSON cost)`,
    `- Vigil ÷ hello world, saturated req/s: ${ratio(vigil.saturated.requestsPerSecond / hello.saturated.requestsPerSecond)}`,
    `- Server CPU per request, Vigil − minimal route: ${count(vigil.cpuMicrosPerRequest - minimal.cpuMicrosPerRequest)} µs ` +
      `(what Vigil adds per request in its own process; ${ratio(vigil.cpuMicrosPerRequest / minimal.cpuMicrosPerRequest)} × the minimal route's)`,
  ].join('\n');
}

/**
 * Three servers on one database, each alone in a child process while it is measured: a bare
 * Fastify hello world, a minimal Fastify + database route running the alert list's SQL, and Vigil
 * answering an authenticated `GET /api/v1/alerts` of 20 items. autocannon saturates each with 50
 * connections, then holds 1,000 requests per second.
 */
export async function runRestBench(options: RestBenchOptions = {}): Promise<string> {
  const durationSeconds = options.smoke ? 1 : (options.durationSeconds ?? 10);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-rest-'));
  const dataDir = path.join(workDir, 'vigil-data');
  const database = options.pglite ? undefined : await benchDatabase();
  const vigilEnv: Record<string, string> = {
    VIGIL_SECRET_KEY: process.env.VIGIL_SECRET_KEY ?? benchSecretKey,
    VIGIL_DATA_DIR: dataDir,
    VIGIL_ROLE: 'api',
    LOG_LEVEL: 'info',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const vigilSpec = { name: 'Vigil', ...vigilServe, env: vigilEnv, readyPath: '/readyz' };

  process.stderr.write(`rest: seeding through the vigil CLI and the REST API (work directory ${workDir})\n`);
  const seeding = await startServer({ ...vigilSpec, logFile: path.join(workDir, 'vigil-seed.log') });
  const org = await seedAlerts(seeding.url, vigilEnv, listedAlerts + 5).finally(() => seeding.stop());

  const minimalDatabase: Record<string, string> = database
    ? { DATABASE_URL: database.url }
    : { BENCH_PGLITE_DIR: path.join(workDir, 'minimal-pglite') };
  if (!database) await cp(path.join(dataDir, 'pglite'), minimalDatabase.BENCH_PGLITE_DIR, { recursive: true });
  if (options.profileDir) await mkdir(options.profileDir, { recursive: true });

  const cases: Case[] = [
    { name: 'Fastify hello world', spec: { name: 'hello', script: 'bench/support/hello-server.ts', env: {}, readyPath: '/' }, path: '/' },
    {
      name: 'Fastify + database, same SQL',
      spec: { name: 'minimal', script: 'bench/support/minimal-server.ts', env: { ...minimalDatabase, BENCH_ORG_ID: org.orgId, VIGIL_SECRET_KEY: vigilEnv.VIGIL_SECRET_KEY }, readyPath: '/alerts' },
      path: '/alerts',
    },
    {
      name: 'Vigil `GET /api/v1/alerts`',
      spec: { ...vigilSpec, nodeOptions: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [] },
      path: '/api/v1/alerts',
      headers: { authorization: `Bearer ${org.apiKey}` },
    },
  ];
  const measured: Measured[] = [];
  const bodies: unknown[] = [];
  for (const bench of cases) {
    const { result, body } = await measure(bench, path.join(workDir, `${bench.spec.name}.log`), durationSeconds, options.smoke ?? false);
    measured.push(result);
    bodies.push(body);
  }
  deepStrictEqual(bodies[1], bodies[2], 'the minimal route and Vigil must answer the same JSON');
  const [hello, minimal, vigil] = measured;

  const databaseLine = database
    ? `PostgreSQL ${database.serverVersion} (${database.origin}); the minimal route uses \`pg\` with a pool of 10, like Vigil`
    : 'embedded PGlite (`--pglite`); the minimal route opens a copy of the same PGlite files';
  return [
    `### REST: authenticated \`GET /api/v1/alerts\`, ${listedAlerts} items`,
    '',
    `- Database: ${databaseLine}.`,
    `- Each server runs alone in a child process (Vigil as \`npm start\` runs it, \`node packages/server/bin/vigil.js serve\` from the compiled build; the others with \`node --import tsx\`), the load in the parent (the steady case's in a new process of its own), each case ${durationSeconds} s: ` +
      `${warmUpSeconds(durationSeconds)} s warm-up, saturated (autocannon, ${connections} connections), then, after ${settleMs / 1000} s idle, a steady ${count(fixedRate)} req/s ` +
      `(one request every millisecond over up to ${connections} undici connections, latency counted from when the request was due; its first ${steadyWarmUpSeconds} s unrecorded, while the new load process's own code warms up), ` +
      `then autocannon \`-R ${fixedRate}\` (bursty: each connection sends its share of the second at once). Latencies per response, 2xx only.`,
    `- Vigil: \`VIGIL_ROLE=api\`, an enterprise org with a custom limit of 1,000,000/min (the most the CLI allows, about 16,700 req/s), pino at \`info\` ` +
      `(one line per request) written to a file (${path.join(workDir, 'Vigil.log')}).`,
    '- The minimal route and Vigil answered the same JSON (checked before measuring).',
    '',
    table(measured),
    '',
    verdicts(hello, minimal, vigil, database !== undefined),
  ].join('\n');
}
