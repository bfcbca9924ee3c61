import { Redis } from 'ioredis';
import pino from 'pino';
import { refuseIfMovedToPostgres } from './admin/moved-to-postgres.js';
import { isServerListening } from './admin/socket.js';
import type { Config } from './config.js';
import { connectDb, type Db } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { systemClock, type Clock } from './platform/clock.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore } from './platform/rate-limit.js';
import { standardOutput } from './platform/log-output.js';
import { keepDataPrivate } from './platform/private-files.js';
import { resolveSecretKey } from './platform/secret-key.js';

export interface Runtime {
  config: Config & { secretKey: string };
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * Without an offline queue a command fails at once while Redis is unreachable, so the limiter
 * falls back to counting in this process without adding latency; ioredis keeps reconnecting in the
 * background. The limiter reports the outage itself (once a minute) instead of ioredis' every error.
 */
export async function redisClient(url: string): Promise<Redis> {
  const redis = new Redis(url, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  await redis.connect().catch(() => undefined);
  return redis;
}

/** One line naming the variable and the server, never the password: the start fails with it. */
function unreachableDatabase(databaseUrl: string, error: unknown): Error {
  const { hostname, port, pathname } = new URL(databaseUrl);
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  return new Error(`cannot connect to the PostgreSQL server in DATABASE_URL (${hostname}:${port || 5432}${pathname}): ${reason}`);
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
  if (!config.databaseUrl && !config.ignoreMovedToPostgres) await refuseIfMovedToPostgres(config.dataDir);
  await keepDataPrivate(config.dataDir);
  const secretKey = await resolveSecretKey(config.secretKey, config.dataDir);
  const db = await connectDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
  }).catch((error: unknown) => {
    throw config.databaseUrl ? unreachableDatabase(config.databaseUrl, error) : error;
  });
  try {
    if (options.migrate !== false) await migrate(db);
    // PGlite sets 0666 on the files it writes, whatever the umask: tightened again now they exist.
    await keepDataPrivate(config.dataDir);
  } catch (error) {
    await db.close();
    throw error;
  }
  const log = pino({ level: config.logLevel }, standardOutput());
  const limiter = new RateLimiter(
    config.redisUrl ? new RedisCounterStore(await redisClient(config.redisUrl)) : new MemoryCounterStore(),
    (message, error) => log.warn({ err: error }, message),
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
