import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter, RedisCounterStore, windowMs } from '../src/platform/rate-limit.js';
import { redisClient } from '../src/runtime.js';
import { startRedisServer } from './support/redis-server.js';
import { waitFor } from './support/webhooks/wait.js';

describe('two processes sharing a limit of 60 a minute while their Redis is killed and restarted', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  const clients: Redis[] = [];
  const stores: RedisCounterStore[] = [];
  const limiters: RateLimiter[] = [];
  const warnings: string[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    for (let i = 0; i < 2; i += 1) {
      // Each "process" connects as the server does (no offline queue: a command fails at once while Redis is away).
      const client = await redisClient(server.url);
      clients.push(client);
      const store = new RedisCounterStore(client, 'vigil-test:rl:');
      stores.push(store);
      limiters.push(new RateLimiter(store, (message) => warnings.push(message)));
    }
  });
  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
    await server.remove();
  });

  it('lets through close to 60 in the window across the outage, never fails a request, and counts in Redis again afterwards', async () => {
    const limit = 60;
    const now = Math.floor(Date.now() / windowMs) * windowMs + 1000;
    let allowed = 0;
    /** `count` requests, alternating between the two processes. */
    const send = async (count: number) => {
      for (let i = 0; i < count; i += 1) if ((await limiters[i % 2].take('org_outage', limit, now)).allowed) allowed += 1;
    };
    for (const store of stores) await store.countPeers();
    expect(stores.map((store) => store.peers)).toEqual([2, 2]);

    await send(20);
    expect(allowed).toBe(20);

    await server.stop();
    await send(100);
    // Each process let through its half of the 40 left; without Redis, counting from zero alone, they let through 100.
    expect(allowed).toBe(60);
    expect(warnings.length).toBe(2);
    expect(warnings[0]).toContain('unreachable');

    await server.start();
    await waitFor(() => clients.map((client) => client.status), (states) => states.every((state) => state === 'ready'), 'both clients reconnected', 10_000);
    await send(20);
    // What each let through during the outage is added to Redis with its next request: at most one more per process.
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + stores.length);
    const shared = Number(await clients[0].get(`vigil-test:rl:org_outage:${now - 1000}`));
    expect(shared).toBe(20 + 100 + 20);
  });
});
