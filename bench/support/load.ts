import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { runCommand } from './processes.js';

export interface LoadTarget {
  url: string;
  headers?: Record<string, string>;
  /** A POST with this body (autocannon only); a GET when omitted. */
  body?: string;
}

export interface LoadResult {
  /** Successful (2xx) responses. */
  requests: number;
  /** Successful (2xx) responses per second over the measured time. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses other than 2xx, connection errors and timeouts: any of these spoils the figures. */
  failures: number;
}

/** The value below which `fraction` of `values` lie (nearest rank); NaN when there are none. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] : Number.NaN;
}

function summarize(latencies: number[], failures: number, started: bigint): LoadResult {
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    failures,
  };
}

/**
 * autocannon with `connections` each sending its next request as soon as the previous one is
 * answered, or with `overallRate`. The latencies are taken from its per-response event, because its
 * own histogram has whole-millisecond buckets and, with a rate, pads the record with made-up values
 * for an expected interval of 1 ms whatever the rate.
 */
export async function autocannonLoad(target: LoadTarget, connections: number, durationSeconds: number, overallRate?: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options: autocannon.Options = {
      url: target.url,
      headers: target.headers,
      ...(target.body === undefined ? {} : { method: 'POST' as const, body: target.body }),
      connections,
      duration: durationSeconds,
      timeout: 10,
      ...(overallRate ? { overallRate } : {}),
    };
    const instance = autocannon(options, (error: unknown, done) => (error ? reject(error) : resolve(done)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  return summarize(latencies, result.non2xx + result.errors + result.timeouts, started);
}

export interface PacedLoadResult extends LoadResult {
  /**
   * How late the load process's own event loop ran over the recorded seconds, p99 and at most: a
   * request due while it was held up left late, or its answer was read late, and was charged to
   * the server all the same.
   */
  loadLoopDelayMs: { p99: number; max: number };
  /** When the recorded seconds began and ended, in milliseconds since the epoch: to find the server's own log lines of them. */
  recordedWindow: { from: number; to: number };
}

/** The event-loop delay monitor's sampling interval; what it records past that is the delay. */
const loopDelayResolutionMs = 1;

/**
 * An open-loop steady rate: request n is due at start + n / perSecond and its latency runs from that
 * moment to the end of its response body, so a server that falls behind is charged for the wait.
 * (autocannon's `overallRate` instead lets every connection send its share of each second back to
 * back when the second begins: a burst of `perSecond` requests, then silence.)
 *
 * The first `warmUpSeconds` run at the same rate and are not recorded: a load process that has just
 * started sends its first few hundred requests late while its own code is still cold, and every
 * request due meanwhile was charged to the server (BENCHMARKS.md, 2026-11-28).
 */
export async function pacedLoad(target: LoadTarget, perSecond: number, connections: number, durationSeconds: number, warmUpSeconds: number): Promise<PacedLoadResult> {
  const url = new URL(target.url);
  const loopDelay = monitorEventLoopDelay({ resolution: loopDelayResolutionMs });
  const recording = setTimeout(() => loopDelay.enable(), warmUpSeconds * 1000);
  const pool = new Pool(url.origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let failures = 0;
  const unrecorded = perSecond * warmUpSeconds;
  const total = unrecorded + perSecond * durationSeconds;
  const intervalNs = 1e9 / perSecond;
  const pending = new Set<Promise<void>>();
  const send = (due: bigint, recorded: boolean) => {
    const done = pool
      .request({ method: 'GET', path: `${url.pathname}${url.search}`, headers: target.headers })
      .then(async (response) => {
        await response.body.dump();
        if (response.statusCode < 200 || response.statusCode >= 300) failures++;
        else if (recorded) latencies.push(Number(process.hrtime.bigint() - due) / 1e6);
      })
      .catch(() => {
        failures++;
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  };
  const started = process.hrtime.bigint();
  const recordedFrom = Date.now() + warmUpSeconds * 1000;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(Number(process.hrtime.bigint() - started) / intervalNs) + 1);
      for (; sent < due; sent++) send(started + BigInt(Math.round(sent * intervalNs)), sent >= unrecorded);
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  clearTimeout(recording);
  loopDelay.disable();
  const result = summarize(latencies, failures, started + BigInt(Math.round(unrecorded * intervalNs)));
  await pool.close();
  const lateMs = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - loopDelayResolutionMs);
  return {
    ...result,
    loadLoopDelayMs: { p99: lateMs(loopDelay.percentile(99)), max: lateMs(loopDelay.max) },
    recordedWindow: { from: recordedFrom, to: Date.now() },
  };
}

/**
 * pacedLoad in a fresh process of its own (paced-load-process.ts). The bench's process holds every
 * earlier case's results (114 MB of heap by the third server): its full collection (9 ms, after
 * marking beside the sending) fell on a run's largest stall, and every request due meanwhile was
 * charged to the server (BENCHMARKS.md, 2026-11-27 evening). A new process's heap stays small; its
 * code starts cold, which `warmUpSeconds` leaves out.
 */
export async function pacedLoadApart(target: LoadTarget, perSecond: number, connections: number, durationSeconds: number, warmUpSeconds: number): Promise<PacedLoadResult> {
  const output = await runCommand(
    ['--import', 'tsx', 'bench/support/paced-load-process.ts', JSON.stringify({ target, perSecond, connections, durationSeconds, warmUpSeconds })],
    {},
  );
  return JSON.parse(output) as PacedLoadResult;
}

/** A figure taken over failed requests measures nothing: any non-2xx answer, error or timeout fails the part. */
export function assertAllAnswered(what: string, results: LoadResult[]): void {
  const failures = results.reduce((total, result) => total + result.failures, 0);
  if (failures > 0) throw new Error(`${what}: ${failures} requests failed (non-2xx, connection error or timeout)`);
}
