import { buildApp, type App } from '../../src/app.js';
import { connectDb, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { systemClock } from '../../src/platform/clock.js';
import { MemoryCounterStore, RateLimiter } from '../../src/platform/rate-limit.js';
import { testConfig } from './app.js';
import { startPostgresServer, type PostgresServer } from './postgres-server.js';

export interface PrivateServerApp {
  server: PostgresServer;
  db: Db;
  app: App;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Vigil's API on loopback over a PostgreSQL server of the test's own (see startPostgresServer),
 * which the test may stop, restart and freeze; short bounds keep an outage's failures quick.
 */
export async function startAppOnPrivateServer(bounds: { connectTimeoutMs: number; statementTimeoutMs: number }): Promise<PrivateServerApp> {
  const server = await startPostgresServer();
  const db = await connectDb({ databaseUrl: server.url, poolSize: 4, ...bounds });
  await migrate(db);
  const app = await buildApp({
    config: testConfig({ logLevel: 'silent', webhookAllowPrivate: true }),
    db,
    clock: systemClock,
    limiter: new RateLimiter(new MemoryCounterStore()),
  });
  const baseUrl = await app.http.listen({ port: 0, host: '127.0.0.1' });
  return {
    server,
    db,
    app,
    baseUrl,
    async close() {
      await app.close();
      await db.close();
      await server.remove();
    },
  };
}
