import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/connect.js';
import { countClosedAttempts } from './attempt-metrics.js';
import { releaseUnsent } from './queue.js';

const firstRetryMs = 250;
const lastRetryMs = 2000;

/** How long to wait before trying a failed write again: 250 ms, doubled after each failure, at most 2 s. */
export function retryDelayMs(failures: number): number {
  return Math.min(firstRetryMs * 2 ** Math.max(failures - 1, 0), lastRetryMs);
}

/**
 * Deliveries the worker holds, or may hold, but will not send: the database failed to answer a
 * write for them (a claim, an attempt's start, a give-back), so the worker cannot know what it
 * holds, and whatever it holds would otherwise stay leased, its started attempt later closed as
 * `worker_lost`, for the whole lease. They are given back (releaseUnsent) as soon as the database
 * answers again: tried at once, then with back-off. This worker never sends them, so giving them
 * back cannot put two sends of one delivery side by side.
 */
export class UnsentDeliveries {
  private readonly held = new Map<string, string>();
  private readonly claimTokens = new Set<string>();
  private claimedBy: Date | null = null;
  private draining: Promise<void> | undefined;
  private closed = false;
  private readonly stopWaiting = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
    /** Called once deliveries were given back: they are due again now. */
    private readonly onReleased: () => void,
  ) {}

  /** A delivery this worker claimed with `token` and will not send. */
  hold(id: string, token: string): void {
    this.held.set(id, token);
    this.drain();
  }

  /** A claim made at `at` with `token` whose answer never came: it may have taken deliveries, and started attempts. */
  claimFailed(token: string, at: Date): void {
    this.claimTokens.add(token);
    if (this.claimedBy === null || at > this.claimedBy) this.claimedBy = at;
    this.drain();
  }

  /** Tries once more at once if a release is waiting, then stops: what is left is due again when its leases end. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWaiting.abort();
    await this.draining;
  }

  private drain(): void {
    this.draining ??= this.releaseAll().finally(() => (this.draining = undefined));
  }

  private async releaseAll(): Promise<void> {
    let failures = 0;
    while (this.held.size > 0 || this.claimTokens.size > 0) {
      const held = [...this.held].map(([id, token]) => ({ id, token }));
      const claimTokens = [...this.claimTokens];
      try {
        countClosedAttempts('not_sent', await releaseUnsent(this.db, { held, claimTokens, claimedBy: this.claimedBy }));
        for (const { id, token } of held) if (this.held.get(id) === token) this.held.delete(id);
        for (const token of claimTokens) this.claimTokens.delete(token);
        if (this.claimTokens.size === 0) this.claimedBy = null;
        failures = 0;
        this.onReleased();
      } catch (error) {
        this.onError(error);
        if (this.closed) return;
        failures += 1;
        await sleep(retryDelayMs(failures), undefined, { ref: false, signal: this.stopWaiting.signal }).catch(() => undefined);
      }
    }
  }
}
