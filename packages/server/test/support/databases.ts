import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDb, type Db } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { pgliteImage } from './pglite-images.js';
import { needs } from './requirements.js';

export type DatabaseKind = 'pglite' | 'postgres';

export const postgresUrl = process.env.VIGIL_TEST_DATABASE_URL || undefined;
export const redisUrl = process.env.VIGIL_TEST_REDIS_URL || undefined;

/** Every database-backed suite runs on PGlite, and on PostgreSQL too when VIGIL_TEST_DATABASE_URL is set (else the skip is reported). */
export function databaseKinds(): DatabaseKind[] {
  return needs('postgres', 'the PostgreSQL runs of its database-backed suites') ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestDatabase {
  db: Db;
  /** PostgreSQL only: the schema this suite lives in. */
  schema: string | undefined;
  drop(): Promise<void>;
}

export async function onPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test PostgreSQL server, for what needs a whole database of its own. */
export async function scratchDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await onPostgres((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onPostgres((client) => client.query(`DROP DATABASE ${name} WITH (FORCE)`)).then(() => undefined) };
}

export interface TestDatabaseOptions {
  migrated?: boolean;
  /** PGlite in these files rather than in memory: a database that survives its thread being stopped. */
  dataDir?: string;
  statementTimeoutMs?: number;
}

/** A migrated database of its own: in-memory PGlite, or a fresh schema on the shared PostgreSQL. */
export async function openTestDatabase(kind: DatabaseKind, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  let database: TestDatabase;
  const migrated = options.migrated !== false;
  if (kind === 'pglite') {
    const image = options.dataDir ? undefined : await pgliteImage(migrated ? 'migrated' : 'empty');
    const db = await connectDb({ dataDir: options.dataDir, statementTimeoutMs: options.statementTimeoutMs, image });
    database = { db, schema: undefined, drop: () => db.close() };
  } else {
    const schema = `vigil_test_${randomBytes(6).toString('hex')}`;
    await onPostgres((client) => client.query(`CREATE SCHEMA ${schema}`));
    const db = await connectDb({ databaseUrl: postgresUrl, searchPath: schema, poolSize: 5 });
    database = {
      db,
      schema,
      async drop() {
        await db.close();
        await onPostgres((client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      },
    };
  }
  if (migrated) await migrate(database.db);
  return database;
}
