// What a POST /alerts costs when its dedupKey repeats an open alert, against a plain create, on
// the same server in the same run. Part of `npm run bench -- rest`.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './support/load.js';
import { benchDatabase } from './support/postgres.js';
import { type RunningServer, startServer, vigilServe } from './support/processes.js';
import { seedAlerts } from './support/seed.js';

export interface AlertDedupBenchOptions {
  pglite?: boolean;
  /** Seconds per case, split over two rounds; the warm-up is a third of it. */
  durationSeconds?: number;
  /** One short round, no warm-up; a failed request or a wrong count fails it (see support/mode.ts). */
  smoke?: boolean;
}

const connections = 10;
const benchSecretKey = 'bench-secret-key-0123456789abcdef0123456789';

interface Case {
  name: string;
  /** The body connection `index` sends, and the statuses it expects back. */
  body(index: number): string;
  expected: number[];
}

interface Tally {
  latencies: number[];
  failures: number;
  seconds: number;
  cpuSeconds: number;
}

/** `connections` closed loops, each sending its next POST as soon as the previous one is answered. */
async function closedLoops(server: RunningServer, apiKey: string, bench: Case, seconds: number, tally: Tally): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      const body = bench.body(index);
      while (performance.now() < deadline) {
        const sent = performance.now();
        const response = await fetch(`${server.url}/api/v1/alerts`, { method: 'POST', headers, body });
        await response.arrayBuffer();
        if (bench.expected.includes(response.status)) tally.latencies.push(performance.now() - sent);
        else tally.failures++;
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
  tally.cpuSeconds += server.cpuSeconds() - cpuBefore;
}

/** However many repeats ran, each connection's key names one alert. */
async function checkOneAlertPerKey(server: RunningServer, apiKey: string): Promise<void> {
  for (let index = 0; index < connections; index++) {
    const response = await fetch(`${server.url}/api/v1/alerts?dedupKey=backup-failed/db-${index}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const { data } = (await response.json()) as { data: unknown[] };
    if (data.length !== 1) throw new Error(`dedupKey backup-failed/db-${index} names ${data.length} alerts, not 1`);
  }
}

/**
 * One Vigil process; ten connections POST alerts for the measured time: plain creates (no
 * dedupKey, each a new alert and its alert.created event), then repeats (each connection its own
 * dedupKey, so every POST after the first counts an occurrence of one open alert), alternating
 * round by round so that drift in the machine's load hits both alike.
 */
export async function runAlertDedupBench(options: AlertDedupBenchOptions = {}): Promise<string> {
  const durationSeconds = options.smoke ? 1 : (options.durationSeconds ?? 10);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-dedup-'));
  const database = options.pglite ? undefined : await benchDatabase('vigil_bench_dedup');
  const env: Record<string, string> = {
    VIGIL_SECRET_KEY: process.env.VIGIL_SECRET_KEY ?? benchSecretKey,
    VIGIL_DATA_DIR: path.join(workDir, 'vigil-data'),
    VIGIL_ROLE: 'api',
    LOG_LEVEL: 'info',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  process.stderr.write(`rest: POST /alerts, plain and dedup repeats (work directory ${workDir})\n`);
  const server = await startServer({ name: 'Vigil', ...vigilServe, env, readyPath: '/readyz', logFile: path.join(workDir, 'vigil.log') });
  try {
    const org = await seedAlerts(server.url, env, 0);
    const alert = { title: 'Backup of db-1 failed', severity: 'high', projectId: org.projectId, description: 'The nightly backup exited 1.' };
    const cases: Case[] = [
      { name: 'plain create (no dedupKey): 201', body: () => JSON.stringify(alert), expected: [201] },
      { name: 'repeat of an open dedupKey: 200', body: (index) => JSON.stringify({ ...alert, dedupKey: `backup-failed/db-${index}` }), expected: [200, 201] },
    ];
    const tallies = cases.map((): Tally => ({ latencies: [], failures: 0, seconds: 0, cpuSeconds: 0 }));
    const warmUp: Tally = { latencies: [], failures: 0, seconds: 0, cpuSeconds: 0 };
    if (!options.smoke) for (const bench of cases) await closedLoops(server, org.apiKey, bench, Math.max(1, Math.round(durationSeconds / 3)), warmUp);
    for (const order of [[0, 1], [1, 0]]) {
      for (const index of order) await closedLoops(server, org.apiKey, cases[index], durationSeconds / 2, tallies[index]);
    }
    await checkOneAlertPerKey(server, org.apiKey);
    if (options.smoke && tallies.some((tally) => tally.failures > 0)) throw new Error('POST /alerts answered an unexpected status');
    const rows = cases.map((bench, index) => {
      const tally = tallies[index];
      const { latencies } = tally;
      const perSecond = latencies.length / tally.seconds;
      const cpuMicros = (tally.cpuSeconds * 1e6) / latencies.length;
      return { name: bench.name, perSecond, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), cpuMicros, failures: tally.failures };
    });
    const [plain, repeat] = rows;
    const databaseLine = database ? `PostgreSQL ${database.serverVersion} (${database.origin})` : 'embedded PGlite (`--pglite`)';
    return [
      '### REST: `POST /api/v1/alerts`, a repeat of an open `dedupKey` against a plain create',
      '',
      `- Database: ${databaseLine}. One Vigil process (\`VIGIL_ROLE=api\`), ${connections} connections in closed loops, ` +
        `each case ${durationSeconds} s in two alternating rounds after a warm-up; in the repeat case each connection has its own key.`,
      '',
      '| case | req/s | p50 ms | p99 ms | server CPU µs/req | failed |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map((row) => `| ${row.name} | ${Math.round(row.perSecond)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${Math.round(row.cpuMicros)} | ${row.failures} |`),
      '',
      `- Repeat ÷ plain create, req/s: **${(repeat.perSecond / plain.perSecond).toFixed(2)}**; server CPU per request: ${(repeat.cpuMicros / plain.cpuMicros).toFixed(2)} × ` +
        '(in its transaction a repeat runs 2 statements, a create 3: no event; alerts.dedup.test.ts counts them).',
    ].join('\n');
  } finally {
    await server.stop();
  }
}
