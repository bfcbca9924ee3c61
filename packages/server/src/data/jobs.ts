import type { Db, Queryable } from '../db/connect.js';
import type { Clock } from '../platform/clock.js';
import { dataJobDuration } from '../platform/metrics.js';

/** A table of jobs: rows in `state` pending, or running under a lease that a crashed worker lets lapse. */
export interface JobTable {
  table: string;
  key: string;
  state: string;
}

const leaseMs = 5 * 60_000;
const renewEveryMs = 60_000;
export const maxAttempts = 3;

/**
 * Takes the oldest pending job, or a running one whose lease lapsed (its worker died), and leases
 * it. SKIP LOCKED lets several workers claim side by side without waiting on each other.
 */
async function claimJob<Row>(db: Queryable, clock: Clock, job: JobTable): Promise<Row | undefined> {
  const now = clock.now();
  const [row] = await db.query<Row>(
    `UPDATE ${job.table} SET ${job.state} = 'running', lease_until = $1, attempts = attempts + 1
     WHERE ${job.key} = (
       SELECT ${job.key} FROM ${job.table}
       WHERE ${job.state} = 'pending' OR (${job.state} = 'running' AND lease_until < $2)
       ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [new Date(now.getTime() + leaseMs), now],
  );
  return row;
}

/** Extends the lease while a long job runs; call the returned function when it ends. */
function keepLeased(db: Queryable, clock: Clock, job: JobTable, id: string): () => void {
  const timer = setInterval(() => {
    db.query(`UPDATE ${job.table} SET lease_until = $1 WHERE ${job.key} = $2`, [new Date(clock.now().getTime() + leaseMs), id]).catch(
      () => undefined,
    );
  }, renewEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Claims one job and runs it under a lease kept fresh until `run` ends; false when none was due. */
export async function runOneJob<Row extends Record<string, unknown>>(
  db: Queryable,
  clock: Clock,
  job: JobTable,
  run: (row: Row) => Promise<void>,
): Promise<boolean> {
  const row = await claimJob<Row>(db, clock, job);
  if (!row) return false;
  const release = keepLeased(db, clock, job, String(row[job.key]));
  try {
    await run(row);
  } finally {
    release();
  }
  return true;
}

/** True at the first call and then once every `everyMs` of the clock: for sweeps run from a job loop. */
export function periodically(clock: Clock, everyMs: number): () => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = clock.now().getTime();
    if (now - last < everyMs) return false;
    last = now;
    return true;
  };
}

export interface JobRunner {
  name: string;
  /** Runs one job; false when there was none to run. */
  runNext(): Promise<boolean>;
}

/** Where a new job is announced, so that idle workers in every process start on it at once. */
const newJobChannel = 'vigil_data_jobs';

/** Wakes the workers when the caller's transaction commits (NOTIFY is delivered at commit). */
export async function announceJob(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [newJobChannel, '']);
}

export interface JobLoop {
  /** Finishes the job in hand, then stops. */
  stop(): Promise<void>;
}

export interface JobLoopOptions {
  /** Listened to for announced jobs; the loop still polls every `idleMs` for lapsed leases. */
  db: Db;
  idleMs: number;
  onError(runner: string, error: unknown): void;
}

/** Runs jobs from every runner while any has work, then waits for an announced job or `idleMs`. */
export async function startJobLoop(runners: JobRunner[], options: JobLoopOptions): Promise<JobLoop> {
  let stopped = false;
  let wake: () => void = () => undefined;
  let announced = false;
  const announce = () => {
    announced = true;
    wake();
  };
  const unlisten = await options.db.listen(newJobChannel, announce, { onResubscribed: announce });
  const loop = (async () => {
    while (!stopped) {
      announced = false;
      let ranAny = false;
      for (const runner of runners) {
        if (stopped) break;
        try {
          const started = performance.now();
          const ran = await runner.runNext();
          if (ran) dataJobDuration.observe({ runner: runner.name }, (performance.now() - started) / 1000);
          ranAny = ran || ranAny;
        } catch (error) {
          options.onError(runner.name, error);
        }
      }
      if (!ranAny && !stopped && !announced) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.idleMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
      await unlisten();
    },
  };
}

