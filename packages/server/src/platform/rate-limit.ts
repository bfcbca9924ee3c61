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

/** Counts requests in fixed windows; `consume` adds `amount` (1 by default) and returns the new count. */
export interface CounterStore {
  consume(key: string, windowStart: number, amount?: number): Promise<number>;
  /** How many processes share these counters (1 for counters of one process). */
  readonly peers: number;
  close(): Promise<void>;
}

/** One process's counters. Exact for that process only: several processes need Redis. */
export class MemoryCounterStore implements CounterStore {
  readonly peers = 1;
  private readonly counts = new Map<string, { windowStart: number; count: number }>();

  async consume(key: string, windowStart: number, amount = 1): Promise<number> {
    return this.add(key, windowStart, amount);
  }

  /** The count in this window, 0 for another window. */
  peek(key: string, windowStart: number): number {
    const entry = this.counts.get(key);
    return entry && entry.windowStart === windowStart ? entry.count : 0;
  }

  /** Sets the count of this window (replacing another window's). */
  set(key: string, windowStart: number, count: number): void {
    if (count === 0) this.counts.delete(key);
    else this.add(key, windowStart, count - this.peek(key, windowStart));
  }

  private add(key: string, windowStart: number, amount: number): number {
    const entry = this.counts.get(key);
    if (entry && entry.windowStart === windowStart) return (entry.count += amount);
    if (this.counts.size > 100_000) this.dropEndedWindows(windowStart);
    this.counts.set(key, { windowStart, count: amount });
    return amount;
  }

  private dropEndedWindows(current: number): void {
    for (const [key, entry] of this.counts) if (entry.windowStart !== current) this.counts.delete(key);
  }

  async close(): Promise<void> {}
}

/** How often each process says it is alive, and how long it counts as a peer after that. */
const peerHeartbeatMs = 5_000;
const peerExpiryMs = 15_000;

/**
 * Counters shared by every process: INCRBY is atomic, so the count is exact under any concurrency.
 * Each process also keeps its id in a sorted set scored by its last heartbeat, so that every
 * process knows how many share the counters (its fair share of a limit while Redis is away).
 */
export class RedisCounterStore implements CounterStore {
  peers = 1;
  private readonly processId = `${process.pid}.${Math.random().toString(36).slice(2)}`;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'vigil:rl:',
  ) {
    this.heartbeat = setInterval(() => void this.countPeers().catch(() => undefined), peerHeartbeatMs);
    this.heartbeat.unref();
    void this.countPeers().catch(() => undefined);
  }

  async consume(key: string, windowStart: number, amount = 1): Promise<number> {
    const redisKey = `${this.prefix}${key}:${windowStart}`;
    const results = await this.redis.multi().incrby(redisKey, amount).pexpire(redisKey, windowMs * 2).exec();
    const [error, count] = results?.[0] ?? [new Error('Redis returned no result for INCRBY'), null];
    if (error) throw error;
    return Number(count);
  }

  /** Records this process as alive and returns how many processes are. */
  async countPeers(now = Date.now()): Promise<number> {
    const key = `${this.prefix}processes`;
    const results = await this.redis
      .multi()
      .zadd(key, now, this.processId)
      .zremrangebyscore(key, 0, now - peerExpiryMs)
      .zcard(key)
      .pexpire(key, peerExpiryMs)
      .exec();
    const [error, count] = results?.[2] ?? [new Error('Redis returned no result for ZCARD'), null];
    if (error) throw error;
    this.peers = Math.max(1, Number(count));
    return this.peers;
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.redis.zrem(`${this.prefix}processes`, this.processId).catch(() => undefined);
    await this.redis.quit().catch(() => undefined);
  }
}

export type StoreFailureReport = (message: string, error: unknown) => void;

export class RateLimiter {
  /** Requests this process let through while the shared counters were away, not yet added to them. */
  private readonly unshared = new MemoryCounterStore();
  /** The shared count this process saw last, per key and window. */
  private readonly lastShared = new MemoryCounterStore();
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
   * The shared count including this request. While the shared counters are unreachable this
   * process does not fail API calls over it (reported once a minute); it estimates the count as
   * the last shared count it saw plus its own requests since, times the number of processes that
   * were sharing: each process then lets through its fair share of what was left of the window.
   * When the counters are back, the requests it let through meanwhile are added to them.
   */
  private async consume(key: string, windowStart: number, now: number): Promise<number> {
    // Taken before the await, so that concurrent requests do not add the same requests twice.
    const pending = this.unshared.peek(key, windowStart);
    this.unshared.set(key, windowStart, 0);
    try {
      const count = await this.store.consume(key, windowStart, pending + 1);
      this.lastShared.set(key, windowStart, Math.max(count, this.lastShared.peek(key, windowStart)));
      return count;
    } catch (error) {
      this.unshared.set(key, windowStart, this.unshared.peek(key, windowStart) + pending);
      if (now - this.lastReportedAt >= windowMs) {
        this.lastReportedAt = now;
        this.reportStoreFailure('The shared rate-limit counters are unreachable: this process counts its share of each limit alone until they are back.', error);
      }
      const local = await this.unshared.consume(key, windowStart);
      return this.lastShared.peek(key, windowStart) + local * this.store.peers;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
