import { deepStrictEqual } from 'node:assert';
import { cp, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertAllAnswered, autocannonLoad, type LoadResult, type LoadTarget, type PacedLoadResult, pacedLoadApart, percentile } from './support/load.js';
import { type BenchDatabase, benchDatabase } from './support/postgres.js';
import { type RunningServer, type ServerSpec, startServer, vigilServe } from './support/processes.js';
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
/** Saturated rounds of the minimal route and Vigil, alternating; a smoke run has one. */
const rounds = (options: RestBenchOptions) => (options.smoke ? 1 : 3);
const fixedRate = 1_000;
const listedAlerts = 20;
const benchSecretKey = 'bench-secret-key-0123456789abcdef0123456789';

interface Case {
  name: string;
  spec: Omit<ServerSpec, 'logFile'>;
  path: string;
  headers?: Record<string, string>;
}

interface Saturated {
  result: LoadResult;
  /** The server process's own CPU time per request while saturated: what it costs, apart from the database. */
  cpuMicrosPerRequest: number;
}

interface Measured {
  name: string;
  /** One per round, in order (the hello world's: one). */
  saturated: Saturated[];
  /** One request every millisecond: the steady 1,000 req/s the latency target is about. */
  paced: PacedLoadResult;
  /** autocannon's own `overallRate`, for comparison: each second's requests leave in a burst. */
  burst: LoadResult;
}

interface Started {
  bench: Case;
  server: RunningServer;
  target: LoadTarget;
}

async function fetchBody(target: LoadTarget): Promise<unknown> {
  const response = await fetch(target.url, { headers: target.headers });
  if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function saturate({ bench, server, target }: Started, durationSeconds: number): Promise<Saturated> {
  process.stderr.write(`rest: ${bench.name}, saturated\n`);
  const cpuBefore = server.cpuSeconds();
  const result = await autocannonLoad(target, connections, durationSeconds);
  return { result, cpuMicrosPerRequest: ((server.cpuSeconds() - cpuBefore) * 1e6) / result.requests };
}

/** The round whose Vigil ÷ minimal route ratio is the median one (the lower middle of an even count). */
function medianRound(minimal: Measured, vigil: Measured): number {
  const byShare = vigil.saturated.map((_, round) => round).sort((a, b) => share(minimal, vigil, a) - share(minimal, vigil, b));
  return byShare[Math.floor((byShare.length - 1) / 2)];
}

const share = (minimal: Measured, vigil: Measured, round: number) =>
  vigil.saturated[round].result.requestsPerSecond / minimal.saturated[round].result.requestsPerSecond;

const settleMs = 2000;
/**
 * The steady load's first seconds, unrecorded: its new process's own start (pacedLoad). On 2 cores
 * that start took more than a core for about 1.2 s, and every database-backed server, the minimal
 * route too, answered 10–40 ms late until 1–1.5 s into the load while it did (BENCHMARKS.md,
 * 2026-12-02 afternoon); with one second unrecorded, that tail was most of the p99.
 */
const steadyWarmUpSeconds = 3;
const warmUpSeconds = (durationSeconds: number) => Math.max(1, Math.round(durationSeconds / 3));
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => value.toFixed(2);
const ratio = (value: number) => value.toFixed(2);

function table(rows: Measured[], round: (row: Measured) => number): string {
  const latency = (result: LoadResult) => `${ms(result.p50Ms)} | ${ms(result.p99Ms)}`;
  return [
    '| server | saturated req/s | p50 ms | p99 ms | server CPU µs/req | steady 1,000/s: req/s | p50 ms | p99 ms | autocannon -R 1000: p50 ms | p99 ms | failed |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const { result, cpuMicrosPerRequest } = row.saturated[round(row)];
      const failed = [...row.saturated.map((each) => each.result), row.paced, row.burst].reduce((total, each) => total + each.failures, 0);
      return (
        `| ${row.name} | ${count(result.requestsPerSecond)} | ${latency(result)} | ${count(cpuMicrosPerRequest)} | ` +
        `${count(row.paced.requestsPerSecond)} | ${latency(row.paced)} | ${latency(row.burst)} | ${failed} |`
      );
    }),
  ].join('\n');
}

function roundsTable(minimal: Measured, vigil: Measured): string {
  return [
    '| round | minimal route req/s | Vigil req/s | Vigil ÷ minimal route | server CPU µs/req, minimal route | Vigil | Vigil − minimal route |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...vigil.saturated.map((each, round) => {
      const base = minimal.saturated[round];
      return (
        `| ${round + 1} | ${count(base.result.requestsPerSecond)} | ${count(each.result.requestsPerSecond)} | ${ratio(share(minimal, vigil, round))} | ` +
        `${count(base.cpuMicrosPerRequest)} | ${count(each.cpuMicrosPerRequest)} | ${count(each.cpuMicrosPerRequest - base.cpuMicrosPerRequest)} |`
      );
    }),
  ].join('\n');
}

const loopDelay = (row: Measured) => `${ms(row.paced.loadLoopDelayMs.p99)} ms, at most ${ms(row.paced.loadLoopDelayMs.max)} ms`;

/** `round`: the median round (medianRound), the one the table shows. */
function verdicts(hello: Measured, minimal: Measured, vigil: Measured, round: number, onPostgres: boolean, vigilOwnSteadyP99Ms: number): string {
  const median = share(minimal, vigil, round);
  const shares = vigil.saturated.map((_, each) => ratio(share(minimal, vigil, each))).join(', ');
  const [helloSaturated, minimalSaturated, vigilSaturated] = [hello.saturated[0], minimal.saturated[round], vigil.saturated[round]];
  const met = (ok: boolean) => (onPostgres ? (ok ? ' — met' : ' — **not met**') : ' (targets are set on PostgreSQL)');
  return [
    `- Vigil ÷ minimal route, saturated req/s, ${vigil.saturated.length === 1 ? 'one round' : `the median of ${vigil.saturated.length} rounds`}: **${ratio(median)}** (target ≥ 0.90)${met(median >= 0.9)}; each round: ${shares}`,
    `- Vigil p99 at a steady ${count(fixedRate)} req/s: **${ms(vigil.paced.p99Ms)} ms** (target ≤ 5 ms)${met(vigil.paced.p99Ms <= 5)}; ` +
      `the hello world's in the same run ${ms(hello.paced.p99Ms)} ms, the minimal route's ${ms(minimal.paced.p99Ms)} ms`,
    `- Where that steady p99 went: Vigil's own p99 over the same seconds (its log's \`ms\`, from Fastify taking the request to its answer) ${ms(vigilOwnSteadyP99Ms)} ms; ` +
      `the load process's event loop late by p99 ${loopDelay(vigil)} (in the hello world's case ${loopDelay(hello)}, the minimal route's ${loopDelay(minimal)})`,
    `- minimal route ÷ hello world, saturated req/s: ${ratio(minimalSaturated.result.requestsPerSecond / helloSaturated.result.requestsPerSecond)} (what the query and its JSON cost)`,
    `- Vigil ÷ hello world, saturated req/s: ${ratio(vigilSaturated.result.requestsPerSecond / helloSaturated.result.requestsPerSecond)}`,
    `- Server CPU per request, Vigil − minimal route, in the median round: ${count(vigilSaturated.cpuMicrosPerRequest - minimalSaturated.cpuMicrosPerRequest)} µs ` +
      `(what Vigil adds per request in its own process; ${ratio(vigilSaturated.cpuMicrosPerRequest / minimalSaturated.cpuMicrosPerRequest)} × the minimal route's)`,
  ].join('\n');
}

/**
 * Three servers on one database, each in a child process of its own, idle while another is
 * measured: a bare Fastify hello world, a minimal Fastify + database route running the alert list's
 * SQL, and Vigil answering an authenticated `GET /api/v1/alerts` of 20 items. autocannon saturates
 * each with 50 connections (the minimal route and Vigil in alternating rounds), then each holds
 * 1,000 requests per second.
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
      spec: { ...vigilSpec, nodeOptions: [...vigilServe.nodeOptions, ...(options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [])] },
      path: '/api/v1/alerts',
      headers: { authorization: `Bearer ${org.apiKey}` },
    },
  ];
  const started: Started[] = [];
  try {
    for (const bench of cases) {
      const server = await startServer({ ...bench.spec, logFile: path.join(workDir, `${bench.spec.name}.log`) });
      started.push({ bench, server, target: { url: `${server.url}${bench.path}`, headers: bench.headers } });
    }
    const [helloServer, minimalServer, vigilServer] = started;
    deepStrictEqual(await fetchBody(minimalServer.target), await fetchBody(vigilServer.target), 'the minimal route and Vigil must answer the same JSON');
    if (!options.smoke) for (const each of started) await autocannonLoad(each.target, connections, warmUpSeconds(durationSeconds));

    const helloSaturated = await saturate(helloServer, durationSeconds);
    const alternating: Saturated[][] = [[], []];
    for (let round = 0; round < rounds(options); round++) {
      for (const [index, each] of [minimalServer, vigilServer].entries()) alternating[index].push(await saturate(each, durationSeconds));
    }
    const saturated = [[helloSaturated], ...alternating];

    const measured: Measured[] = [];
    for (const [index, each] of started.entries()) {
      process.stderr.write(`rest: ${each.bench.name}, steady\n`);
      // The steady case starts once the server has settled after saturation: traced request by
      // request, most of the hello-world server's slow answers and a quarter of the minimal route's
      // came in its first half second otherwise (BENCHMARKS.md, 2026-11-27 evening).
      if (!options.smoke) await sleep(settleMs);
      const paced = await pacedLoadApart(each.target, fixedRate, connections, durationSeconds, steadyWarmUpSeconds);
      const burst = await autocannonLoad(each.target, connections, durationSeconds, fixedRate);
      measured.push({ name: each.bench.name, saturated: saturated[index], paced, burst });
      assertAllAnswered(each.bench.name, [...saturated[index].map((one) => one.result), paced, burst]);
    }
    const vigilLog = path.join(workDir, 'Vigil.log');
    return report(measured, { database, durationSeconds, vigilLog, vigilOwnSteadyP99Ms: await ownP99Ms(vigilLog, measured[2].paced.recordedWindow) });
  } finally {
    for (const each of started) await each.server.stop();
  }
}

/**
 * Vigil's own time for the requests it answered within `window`: its log line's `ms`, from Fastify
 * taking the request to its answer. What the steady load saw beyond it was spent outside Vigil's
 * handling: waiting to be read, on the network, or in the load process.
 */
async function ownP99Ms(vigilLog: string, window: { from: number; to: number }): Promise<number> {
  const own: number[] = [];
  for (const line of (await readFile(vigilLog, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const { msg, time, ms: took } = JSON.parse(line) as { msg?: string; time?: number; ms?: number };
    if (msg === 'request' && took !== undefined && time !== undefined && time >= window.from && time <= window.to) own.push(took);
  }
  return percentile(own, 0.99);
}

function report(measured: Measured[], run: { database: BenchDatabase | undefined; durationSeconds: number; vigilLog: string; vigilOwnSteadyP99Ms: number }): string {
  const { database, durationSeconds } = run;
  const [hello, minimal, vigil] = measured;
  const round = medianRound(minimal, vigil);
  const databaseLine = database
    ? `PostgreSQL ${database.serverVersion} (${database.origin}); the minimal route uses \`pg\` with a pool of 10, like Vigil`
    : 'embedded PGlite (`--pglite`); the minimal route opens a copy of the same PGlite files';
  return [
    `### REST: authenticated \`GET /api/v1/alerts\`, ${listedAlerts} items`,
    '',
    `- Database: ${databaseLine}.`,
    `- Each server runs in a child process of its own (Vigil as \`npm start\` runs it, \`node ${[...vigilServe.nodeOptions, vigilServe.script, ...vigilServe.args].join(' ')}\` from the compiled build; the others with \`node --import tsx\`), all three started at once and idle while another is measured; the load in the parent (the steady case's in a new process of its own), each case ${durationSeconds} s: ` +
      `${warmUpSeconds(durationSeconds)} s warm-up, saturated (autocannon, ${connections} connections; the minimal route and Vigil in ${vigil.saturated.length} alternating rounds, so that a machine whose speed drifts weighs on both alike, the table showing the median round), ` +
      `then, after ${settleMs / 1000} s idle, a steady ${count(fixedRate)} req/s ` +
      `(one request every millisecond over up to ${connections} undici connections, latency counted from when the request was due; its first ${steadyWarmUpSeconds} s unrecorded, while the new load process's own code warms up), ` +
      `then autocannon \`-R ${fixedRate}\` (bursty: each connection sends its share of the second at once). Latencies per response, 2xx only.`,
    `- Vigil: \`VIGIL_ROLE=api\`, an enterprise org with a custom limit of 1,000,000/min (the most the CLI allows, about 16,700 req/s), pino at \`info\` ` +
      `(one line per request) written to a file (${run.vigilLog}).`,
    '- The minimal route and Vigil answered the same JSON (checked before measuring).',
    '',
    table(measured, (row) => (row === hello ? 0 : round)),
    '',
    roundsTable(minimal, vigil),
    '',
    verdicts(hello, minimal, vigil, round, database !== undefined, run.vigilOwnSteadyP99Ms),
  ].join('\n');
}
