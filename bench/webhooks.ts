import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../packages/server/src/config.js';
import { connectDb, type Db } from '../packages/server/src/db/connect.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { recordEvent } from '../packages/server/src/events/outbox.js';
import { OrganizationService } from '../packages/server/src/modules/organizations/service.js';
import type { Project } from '../packages/server/src/modules/projects/schema.js';
import { WebhookService } from '../packages/server/src/modules/webhooks/service.js';
import { systemClock } from '../packages/server/src/platform/clock.js';
import type { ServiceContext } from '../packages/server/src/platform/context.js';
import { deliveryPayload } from '../packages/server/src/webhooks/payload.js';
import { deliveryHeaders } from '../packages/server/src/webhooks/signer.js';
import { DeliveryWorker } from '../packages/server/src/webhooks/worker.js';
import { testTls } from '../packages/server/test/support/webhooks/tls.js';
import { type BenchMode, fullRun, sized } from './support/mode.js';
import { postgresCpuMicros, postgresCpuMicrosSince } from './support/postgres-cpu.js';
import { recordedSender } from './support/recorded-sender.js';
import { backlogBesideEvents, slowPath, waitUntilDelivered } from './support/webhook-backlog.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const latencyPerSecond = 50;
/** The worker's default per-webhook limit, which bounds its connections to one endpoint; the bare sender gets as many. */
const connections = 32;

interface Receiver {
  port: number;
  process: ChildProcess;
}

async function startReceiver(): Promise<Receiver> {
  const tls = testTls();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'bench/support/webhook-receiver.ts')], {
    cwd: repoRoot,
    env: { ...process.env, TLS_KEY_FILE: tls.keyFile, TLS_CERT_FILE: tls.certFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the benchmark receiver exited ${code}`)));
  });
  return { port, process: child };
}

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The bare recorded sender's queue, beside the worker's. */
const baselineSchema = 'vigil_bench_webhooks_recorded';
/** The queue a fresh worker delivers first, so that its code is compiled before it is measured. */
const warmUpSchema = 'vigil_bench_webhooks_warm_up';

async function withSchema<T>(schema: string, work: (db: Db, serverVersion: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const run = async (sql: string) => admin.query(sql);
  await run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await run(`CREATE SCHEMA ${schema}`);
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const db = await connectDb({ databaseUrl, searchPath: schema, poolSize: 10 });
  try {
    await migrate(db);
    return await work(db, version);
  } finally {
    await db.close();
    await run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

/** This process's CPU time since `before`, user and system: steadier from run to run than deliveries per second. */
const cpuMicrosSince = (before: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(before);
  return user + system;
};

const micros = (value: number) => (Number.isNaN(value) ? 'not measured' : `${Math.round(value)} µs`);

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];

/** Signs and POSTs the same bodies to the same receiver through an undici Pool: the sending path alone. */
async function bareSender(origin: string, bodies: { id: string; event: string; body: string }[], secret: string): Promise<number> {
  const pool = new Pool(origin, { connections, pipelining: 1, connect: { ca: [testTls().ca] } });
  let next = 0;
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < bodies.length) {
        const item = bodies[next++];
        const headers = deliveryHeaders({ deliveryId: item.id, event: item.event, body: item.body, timestamp: Math.floor(Date.now() / 1000), secrets: [secret] });
        const response = await pool.request({ path: '/hook', method: 'POST', headers, body: item.body });
        await response.body.dump();
        if (response.statusCode === 200) ok++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (ok !== bodies.length) throw new Error(`the bare sender got ${bodies.length - ok} non-200 answers`);
  return bodies.length / seconds;
}

const benchSecretKey = 'bench-secret-key-0123456789abcdef0123';
const config = {
  ...loadConfig({ VIGIL_SECRET_KEY: benchSecretKey, VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' }),
  secretKey: benchSecretKey,
};
const project = (at: Date): Project => ({ id: 'proj_bench', name: 'Bench', area: null, description: null, createdAt: at.toISOString(), updatedAt: at.toISOString() });

/** An organization with one webhook on the receiver, and `count` project.updated events queued for it, 500 per transaction. */
async function queueDeliveries(db: Db, receiverPort: number, count: number) {
  const ctx: ServiceContext = { db, clock: systemClock, config };
  const { org } = await new OrganizationService(ctx).create({ name: 'Bench', plan: 'enterprise' });
  const hook = await new WebhookService(ctx).create(org.id, {
    name: 'bench',
    url: `https://127.0.0.1:${receiverPort}/hook`,
    events: ['project.updated', 'project.created'],
  });
  const updated = project(systemClock.now());
  const started = performance.now();
  for (let done = 0; done < count; done += 500) {
    await db.transaction(async (tx) => {
      for (let index = done; index < Math.min(count, done + 500); index += 1) {
        await recordEvent(tx, systemClock, org.id, 'project.updated', { ...updated, area: `area ${index}` });
      }
    });
  }
  const enqueuePerSecond = count / ((performance.now() - started) / 1000);
  // The statistics autovacuum keeps on a queue that has been running: right after the burst the
  // planner takes the queue for a few rows, and the bare recorded sender's claim then sorted every
  // due row (17 ms per claim of 100; 2026-11-29).
  await db.exec('ANALYZE webhooks, events, webhook_deliveries, webhook_attempts');
  return { org, hook, enqueuePerSecond };
}

/**
 * Deliveries per second from Vigil's worker (claim, sign, POST, record every attempt) on PostgreSQL
 * to a local HTTPS receiver that answers 200 at once, beside a bare undici sender that signs and
 * POSTs the same bodies and a bare recorded sender that also writes each attempt's start and outcome
 * in the fewest statements (support/recorded-sender.ts), both in the same run; then the time from a
 * committed event to the start of its first attempt at light load. Each sender is measured warm, as a
 * worker that has been running is: measured cold, the worker compiled its code (and undici's) during
 * its own run, and the bare sender that followed it found that code compiled. Delivering a second
 * queue in the same process, the worker went 13–40 % faster than in its first (BENCHMARKS.md,
 * 2026-12-03 evening).
 */
export async function runWebhookBench(mode: BenchMode = fullRun): Promise<string> {
  const deliveries = sized(mode, 20_000, 300);
  const warmUpDeliveries = sized(mode, 5_000, 30);
  const latencyEvents = sized(mode, 300, 5);
  const backlogSize = sized(mode, { backlog: 100_000, eventsPerSecond: 40, seconds: 10, warmUpSeconds: 3 }, { backlog: 300, eventsPerSecond: 20, seconds: 1, warmUpSeconds: 0.5 });
  const receiver = await startReceiver();
  try {
    const coldPerSecond = await withSchema(warmUpSchema, async (db) => {
      const { hook } = await queueDeliveries(db, receiver.port, warmUpDeliveries);
      const started = performance.now();
      const worker = await DeliveryWorker.start({ db, clock: systemClock, config, ca: [testTls().ca] });
      await waitUntilDelivered(db, hook.id, warmUpDeliveries);
      const perSecond = warmUpDeliveries / ((performance.now() - started) / 1000);
      await worker.stop();
      return perSecond;
    });
    return await withSchema('vigil_bench_webhooks', async (db, serverVersion) => {
      const { org, hook, enqueuePerSecond } = await queueDeliveries(db, receiver.port, deliveries);
      const workerCpuBefore = process.cpuUsage();
      const postgresBefore = postgresCpuMicros();
      const started = performance.now();
      const worker = await DeliveryWorker.start({ db, clock: systemClock, config, ca: [testTls().ca] });
      await waitUntilDelivered(db, hook.id, deliveries);
      const workerPerSecond = deliveries / ((performance.now() - started) / 1000);
      const workerCpuMicros = cpuMicrosSince(workerCpuBefore) / deliveries;
      const workerPostgresMicros = postgresCpuMicrosSince(postgresBefore) / deliveries;
      const [recorded] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_attempts`);
      if (recorded.n !== deliveries) throw new Error(`${deliveries} deliveries but ${recorded.n} attempts recorded: every attempt must be, once`);

      const events = await db.query<{ id: string; type: string; data: Record<string, unknown>; created_at: Date }>(
        `SELECT e.id, e.type, e.data, e.created_at FROM events e WHERE e.type = 'project.updated' ORDER BY e.id`,
      );
      const bodies = events.map((event) => ({
        id: event.id,
        event: event.type,
        body: JSON.stringify(deliveryPayload(event.type, org.id, event.created_at, event.data)),
      }));
      await bareSender(`https://127.0.0.1:${receiver.port}`, bodies.slice(0, warmUpDeliveries), hook.secret);
      const barePerSecond = await bareSender(`https://127.0.0.1:${receiver.port}`, bodies, hook.secret);
      const baseline = await withSchema(baselineSchema, async (baselineDb) => {
        const queued = await queueDeliveries(baselineDb, receiver.port, deliveries);
        const cpuBefore = process.cpuUsage();
        const { perSecond, postgresMicros } = await recordedSender({
          databaseUrl,
          schema: baselineSchema,
          origin: `https://127.0.0.1:${receiver.port}`,
          ca: testTls().ca,
          webhookId: queued.hook.id,
          secret: queued.hook.secret,
          connections,
        });
        const [attempts] = await baselineDb.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_attempts WHERE http_status = 200`);
        if (attempts.n !== deliveries) throw new Error(`the recorded sender recorded ${attempts.n} of ${deliveries} attempts`);
        return { perSecond, cpuMicros: cpuMicrosSince(cpuBefore) / deliveries, postgresMicros: postgresMicros / deliveries };
      });

      const latencies: number[] = [];
      for (let index = 0; index < latencyEvents; index += 1) {
        const event = await db.transaction((tx) => recordEvent(tx, systemClock, org.id, 'project.created', { ...project(systemClock.now()), name: `p${index}` }));
        await sleep(1000 / latencyPerSecond);
        latencies.push(new Date(event.timestamp).getTime());
      }
      await waitUntilDelivered(db, hook.id, deliveries + latencyEvents);
      const starts = await db.query<{ committed: Date; started: Date }>(
        `SELECT e.created_at AS committed, a.started_at AS started FROM webhook_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
         WHERE d.event = 'project.created' AND a.number = 1`,
      );
      await worker.stop();
      const waits = starts.map((row) => row.started.getTime() - row.committed.getTime()).sort((a, b) => a - b);
      const beside = await backlogBesideEvents(
        { db, clock: systemClock, config },
        `https://127.0.0.1:${receiver.port}`,
        () => DeliveryWorker.start({ db, clock: systemClock, config, ca: [testTls().ca] }),
        backlogSize,
      );

      const ratio = workerPerSecond / barePerSecond;
      return [
        '### webhooks',
        '',
        `PostgreSQL ${serverVersion}; one webhook; a local HTTPS receiver (its own process) answering 200 at once; ` +
          `${deliveries} deliveries queued before the worker starts; the worker's defaults (batches of 100, ${connections} attempts in flight per webhook). ` +
          `Both senders warmed up first, as a running worker is: a fresh worker delivers another queue of ${warmUpDeliveries} (its figure below), ` +
          `the bare sender the first ${warmUpDeliveries} bodies.`,
        '',
        '| measure | figure |',
        '|---|---|',
        `| Vigil worker: claim, sign (both signatures), POST, record every attempt | ${Math.round(workerPerSecond)} deliveries/s |`,
        `| bare undici sender: sign and POST the same bodies, ${connections} connections | ${Math.round(barePerSecond)} deliveries/s |`,
        `| worker ÷ bare sender | ${ratio.toFixed(2)} |`,
        `| the warm-up: a fresh worker's first ${warmUpDeliveries} deliveries, its code not yet compiled | ${Math.round(coldPerSecond)} deliveries/s (${(coldPerSecond / barePerSecond).toFixed(2)} × the bare sender) |`,
        `| bare recorded sender: per batch of 100, one statement leases and starts the attempts, sign and POST, one statement records the outcomes; ${connections} connections | ${Math.round(baseline.perSecond)} deliveries/s |`,
        `| bare recorded sender ÷ bare sender (what recording every attempt costs at the least, done this simply) | ${(baseline.perSecond / barePerSecond).toFixed(2)} |`,
        `| worker ÷ bare recorded sender (what Vigil's worker costs over the same database work) | ${(workerPerSecond / baseline.perSecond).toFixed(2)} |`,
        `| CPU of the sending process per delivery: worker, bare recorded sender | ${Math.round(workerCpuMicros)} µs, ${Math.round(baseline.cpuMicros)} µs |`,
        `| CPU of PostgreSQL's processes per delivery (this machine's, from /proc): worker, bare recorded sender | ${micros(workerPostgresMicros)}, ${micros(baseline.postgresMicros)} |`,
        `| attempts recorded / deliveries | ${recorded.n} / ${deliveries} |`,
        `| queueing: events with their deliveries committed (500 per transaction) | ${Math.round(enqueuePerSecond)} events/s |`,
        `| committed event → start of its first attempt, ${latencyEvents} events at ${latencyPerSecond}/s | p50 ${percentile(waits, 0.5)} ms, p99 ${percentile(waits, 0.99)} ms |`,
        `| beside another organization's backlog (${backlogSize.backlog.toLocaleString('en')} due on a receiver taking 50 ms, \`${slowPath}\`): ` +
          `${beside.events} events at ${backlogSize.eventsPerSecond}/s over ${backlogSize.seconds} s, committed event → first attempt | ` +
          `p50 ${Math.round(beside.p50Ms)} ms, p99 ${Math.round(beside.p99Ms)} ms; PostgreSQL at ${Math.round(beside.postgresShare * 100)} % of a core |`,
        '',
        `Targets: ≥ 2,000 deliveries/s and ≥ 0.30 × the bare sender with every attempt recorded; p99 ≤ 100 ms at light load. ` +
          `Met: ${workerPerSecond >= 2000 && ratio >= 0.3 && recorded.n === deliveries ? 'throughput yes' : 'throughput NO'}, ` +
          `${percentile(waits, 0.99) <= 100 ? 'latency yes' : 'latency NO'}.`,
      ].join('\n');
    });
  } finally {
    receiver.process.kill('SIGTERM');
  }
}
