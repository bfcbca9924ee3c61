import type { Redis } from 'ioredis';

export const windowMs = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window restarts. */
  resetAt: number;
  /** Whole seconds to wait, at least 1, when not allowed. */
  retryAfter: number;
}

/** Counts requests in fixed windows; `consume` returns the count including this request. */
export interface CounterStore {
  consume(key: string, windowStart: number): Promise<number>;
  close(): Promise<void>;
}

/** One process's counters. Exact for that process only: several processes need Redis. */
export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { windowStart: number; count: number }>();

  async consume(key: string, windowStart: number): Promise<number> {
    const entry = this.counts.get(key);
    if (entry && entry.windowStart === windowStart) return ++entry.count;
    if (this.counts.size > 100_000) this.dropEndedWindows(windowStart);
    this.counts.set(key, { windowStart, count: 1 });
    return 1;
  }

  private dropEndedWindows(current: number): void {
    for (const [key, entry] of this.counts) if (entry.windowStart !== current) this.counts.delete(key);
  }

  async close(): Promise<void> {}
}

/** Counters shared by every process: INCR is atomic, so the count is exact under any concurrency. */
export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'vigil:rl:',
  ) {}

  async consume(key: string, windowStart: number): Promise<number> {
    const redisKey = `${this.prefix}${key}:${windowStart}`;
    const results = await this.redis.multi().incr(redisKey).pexpire(redisKey, windowMs * 2).exec();
    const [error, count] = results?.[0] ?? [new Error('Redis returned no result for INCR'), null];
    if (error) throw error;
    return Number(count);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

export type StoreFailureReport = (message: string, error: unknown) => void;

export class RateLimiter {
  private readonly fallback = new MemoryCounterStore();
  private lastReportedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: CounterStore,
    private readonly reportStoreFailure: StoreFailureReport = () => undefined,
  ) {}

  async take(orgId: string, limit: number, now: number): Promise<RateLimitDecision> {
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const windowEnd = windowStart + windowMs;
    const count = await this.consume(orgId, windowStart, now);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetAt: Math.floor(windowEnd / 1000),
      retryAfter: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
    };
  }

  /**
   * While the shared counters are unreachable, this process counts alone (reported once a minute)
   * rather than failing every API call over an outage of the counters.
   */
  private async consume(key: string, windowStart: number, now: number): Promise<number> {
    try {
      return await this.store.consume(key, windowStart);
    } catch (error) {
      if (now - this.lastReportedAt >= windowMs) {
        this.lastReportedAt = now;
        this.reportStoreFailure('The shared rate-limit counters are unreachable: this process counts requests alone until they are back.', error);
      }
      return this.fallback.consume(key, windowStart);
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
