import { type Clock, systemClock } from './clock.js';

/**
 * Keeps what `load` answered for a key for at most `maxAgeMs`, so a hot lookup costs no database
 * round trip, and concurrent lookups of one key share one load. The freshness bound, not a message
 * bus, is what makes a change made by any process (a revoked key or embed token, a plan change)
 * apply in every process within that time. Unknown keys are cached too, so a flood of bad ones
 * costs one load per key per period. Real time by default: it measures staleness, not business time;
 * a test's manual clock makes the period pass without waiting for it. An entry from a later time
 * than now (a clock set back) is stale, so that setting a clock back never extends the period.
 */
export class FreshCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; fetchedAt: number }>();

  constructor(
    private readonly load: (key: string) => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: Clock = systemClock,
  ) {}

  lookup(key: string): Promise<T> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(key);
    if (cached && now >= cached.fetchedAt && now - cached.fetchedAt < this.maxAgeMs) return cached.value;
    const value = this.load(key);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, fetchedAt: now });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  forget(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
