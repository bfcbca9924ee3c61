import { Redis } from 'ioredis';
import { isServerListening } from './admin/socket.js';
import type { Config } from './config.js';
import { connectDb, type Db } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { systemClock, type Clock } from './platform/clock.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore } from './platform/rate-limit.js';
import { resolveSecretKey } from './platform/secret-key.js';

export interface Runtime {
  config: Config & { secretKey: string };
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * What both the server and the CLI stand on: a migrated database, the secret key, the counters.
 * `vigil migrate` opens it unmigrated, so that it can report what it applied itself.
 */
export async function openRuntime(config: Config, options: { migrate?: boolean } = {}): Promise<Runtime> {
  if (!config.databaseUrl && (await isServerListening(config.dataDir))) {
    // Two PGlite instances on the same files would corrupt them.
    throw new Error(`another Vigil server is using ${config.dataDir}; stop it first, or set VIGIL_DATA_DIR to another directory`);
  }
  const secretKey = await resolveSecretKey(config.secretKey, config.dataDir);
  const db = await connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    if (options.migrate !== false) await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const limiter = new RateLimiter(
    config.redisUrl ? new RedisCounterStore(new Redis(config.redisUrl, { maxRetriesPerRequest: 2 })) : new MemoryCounterStore(),
  );
  return {
    config: { ...config, secretKey },
    db,
    clock: systemClock,
    limiter,
    async close() {
      await limiter.close();
      await db.close();
    },
  };
}
