import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db, Queryable } from './connect.js';

const migrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Any fixed number works; it only has to be the same in every Vigil process. */
const migrationLockKey = 7_321_004_001;

export interface Migration {
  version: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(migrationsDir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({ version: file.replace(/\.sql$/, ''), sql: await readFile(migrationsDir + file, 'utf8') })),
  );
}

/** Runs `work` in a transaction holding the migration lock, so processes that start together take turns. */
function underMigrationLock<T>(db: Db, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
    return work(tx);
  });
}

/**
 * Applies pending migrations, each in its own transaction under the migration lock; each re-reads
 * what is applied once it holds the lock. Even the bookkeeping table is created under the lock:
 * CREATE TABLE IF NOT EXISTS is not safe when two sessions run it at the same moment.
 * `migrations` defaults to the files in migrations/.
 */
export async function migrate(db: Db, migrations?: Migration[]): Promise<string[]> {
  await underMigrationLock(db, (tx) =>
    tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`),
  );
  const applied: string[] = [];
  for (const migration of migrations ?? (await loadMigrations())) {
    const ran = await underMigrationLock(db, async (tx) => {
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}
