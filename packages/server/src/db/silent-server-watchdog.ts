import type pg from 'pg';

/** How often checked-out connections are compared with their deadline: the bound's precision. */
const sweepEveryMs = 250;

/** pg's socket of a connection: not in its typings, but the handle pg itself destroys to give up on a query. */
type ConnectedClient = pg.PoolClient & { connection?: { stream?: { destroy(error?: Error): void } } };

/**
 * Gives up on a connection whose server has left a statement unanswered past a deadline (a frozen
 * server or a partitioned network cancels nothing itself): the connection is destroyed, so the
 * statement fails with "Query read timeout" — a DatabaseUnavailable, answered 503 — and the pool
 * drops the connection.
 *
 * A deadline is set when the pool hands a connection out and again before each statement of a
 * transaction (`rearm`); it ends when the connection goes back. One timer serves the whole pool:
 * pg's own `query_timeout` arms and clears a timer per statement, and taking the connection out
 * of `pool.query` to time it ourselves, as much again; either cost 60–100 µs of CPU per API
 * request (BENCHMARKS.md, issue 22). The deadline holds to within `sweepEveryMs`.
 */
export class SilentServerWatchdog {
  private readonly deadlines = new Map<ConnectedClient, number>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    pool: pg.Pool,
    private readonly limitMs: number,
  ) {
    pool.on('acquire', (client) => this.rearm(client));
    pool.on('release', (_error, client) => this.deadlines.delete(client));
  }

  /** The statement about to run on `client` has the whole limit. */
  rearm(client: pg.PoolClient): void {
    this.deadlines.set(client, performance.now() + this.limitMs);
    this.sweeper ??= setInterval(() => this.sweep(), sweepEveryMs).unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [client, deadline] of this.deadlines) {
      if (deadline > now) continue;
      this.deadlines.delete(client);
      client.connection?.stream?.destroy(new Error(`Query read timeout: the database answered nothing for ${this.limitMs} ms`));
    }
    if (this.deadlines.size === 0) this.stop();
  }
}
