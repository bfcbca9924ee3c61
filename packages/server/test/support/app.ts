import { Writable } from 'node:stream';
import { buildApp, type App } from '../../src/app.js';
import type { Db } from '../../src/db/connect.js';
import { type Config, loadConfig } from '../../src/config.js';
import { ManualClock, systemClock, type Clock } from '../../src/platform/clock.js';
import type { ResolvedConfig } from '../../src/platform/context.js';
import type { Plan } from '../../src/platform/plans.js';
import { MemoryCounterStore, RateLimiter } from '../../src/platform/rate-limit.js';
import { type DatabaseKind, openTestDatabase, type TestDatabase, type TestDatabaseOptions } from './databases.js';

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestOrg {
  orgId: string;
  apiKey: string;
  keyId: string;
  adminUserId: string | null;
  /** The founding admin's invitation link (already accepted unless `founderJoins: false`). */
  inviteUrl: string | null;
}

export interface TestApp {
  baseUrl: string;
  app: App;
  database: TestDatabase;
  clock: Clock;
  /** Every log line the app wrote, as text. */
  logs: string[];
  /** An organization whose founding admin has joined (active), unless `founderJoins` is false. */
  createOrg(
    plan?: Plan,
    options?: { name?: string; adminEmail?: string; rateLimitPerMinute?: number; founderJoins?: boolean },
  ): Promise<TestOrg>;
  /** Calls the API over real HTTP on loopback; `path` is relative to /api/v1 unless it starts with /. */
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: { apiKey?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  limiter?: RateLimiter;
  config?: Partial<Config>;
  database?: Omit<TestDatabaseOptions, 'migrated'>;
  /** What the app is given instead of the test database itself (a wrapper that watches it). */
  wrapDb?: (db: Db) => Db;
}

export const testSecretKey = 'test-secret-key-0123456789abcdef0123456789';

export function testConfig(overrides: Partial<Config> = {}): ResolvedConfig {
  return { ...loadConfig({ VIGIL_SECRET_KEY: testSecretKey, LOG_LEVEL: 'info' }), secretKey: testSecretKey, ...overrides };
}

export async function startTestApp(kind: DatabaseKind, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase(kind, options.database);
  const clock = options.clock ?? systemClock;
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const limiter = options.limiter ?? new RateLimiter(new MemoryCounterStore());
  const db = options.wrapDb ? options.wrapDb(database.db) : database.db;
  const app = await buildApp({ config: testConfig(options.config), db, clock, limiter, logStream });
  const address = await app.http.listen({ port: 0, host: '127.0.0.1' });

  return {
    baseUrl: address,
    app,
    database,
    clock,
    logs,
    async createOrg(plan = 'business', orgOptions = {}) {
      const created = await app.services.organizations.create({
        name: orgOptions.name ?? 'Test Org',
        plan,
        adminEmail: orgOptions.adminEmail ?? 'admin@example.com',
      });
      if (created.admin && orgOptions.founderJoins !== false) {
        await database.db.transaction((tx) => app.services.users.join(tx, created.org.id, created.admin!.id));
      }
      if (orgOptions.rateLimitPerMinute !== undefined) {
        await app.services.organizations.setRateLimit(created.org.id, orgOptions.rateLimitPerMinute);
      }
      return { orgId: created.org.id, apiKey: created.apiKey, keyId: created.keyId, adminUserId: created.admin?.id ?? null, inviteUrl: created.inviteUrl };
    },
    async request<T>(
      method: string,
      path: string,
      requestOptions: { apiKey?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
    ): Promise<HttpResult<T>> {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.apiKey) headers.authorization = `Bearer ${requestOptions.apiKey}`;
      let body: string | Buffer | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const url = `${address}${path.startsWith('/') ? path : `/api/v1/${path}`}`;
      const payload = typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
      const response = await fetch(url, { method, headers, body: payload });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: response.status, headers: response.headers, body: parsed as T };
    },
    async close() {
      await app.close();
      await limiter.close();
      await database.drop();
    },
  };
}

export { ManualClock };
