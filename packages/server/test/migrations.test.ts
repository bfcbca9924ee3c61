import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDb } from '../src/db/connect.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';
import { runCli, runCliJson, tempDataDir, tempPostgresSchema } from './support/processes.js';
import { needs } from './support/requirements.js';

const appliedVersions = async (database: TestDatabase) =>
  (await database.db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version')).map((row) => row.version);

describe.each(databaseKinds())('migrations on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind, { migrated: false });
  });
  afterAll(() => database.drop());

  it('applies every migration once, in order, and then has nothing left to do', async () => {
    const all = (await loadMigrations()).map((migration) => migration.version);
    expect(all[0]).toBe('0001_core');
    expect([...all].sort()).toEqual(all);
    expect(await migrate(database.db)).toEqual(all);
    expect(await migrate(database.db)).toEqual([]);
    expect(await appliedVersions(database)).toEqual(all);
    const tables = await database.db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
    );
    expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['organizations', 'api_keys', 'events', 'schema_migrations']));
  });

  it('runs each migration in its own transaction: a failing one leaves nothing half-done', async () => {
    const good = { version: '9001_good', sql: 'CREATE TABLE migration_good (id int);' };
    const bad = { version: '9002_bad', sql: 'CREATE TABLE migration_half (id int); INSERT INTO migration_half VALUES (1); SELECT 1 / 0;' };
    await expect(migrate(database.db, [good, bad])).rejects.toThrow(/division by zero/);
    const exists = async (table: string) =>
      (await database.db.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`, [table]))
        .length === 1;
    expect(await exists('migration_good')).toBe(true);
    expect(await exists('migration_half')).toBe(false);
    expect(await appliedVersions(database)).toContain('9001_good');
    expect(await appliedVersions(database)).not.toContain('9002_bad');

    const fixed = { version: '9002_bad', sql: 'CREATE TABLE migration_half (id int);' };
    expect(await migrate(database.db, [good, fixed])).toEqual(['9002_bad']);
    expect(await exists('migration_half')).toBe(true);
  });
});

describe.runIf(needs('postgres', 'PostgreSQL-only tests'))('migrations when several processes start at once on PostgreSQL', () => {
  it('two connections migrating a fresh schema together both succeed and apply each migration once', async () => {
    const target = await tempPostgresSchema();
    const [a, b] = await Promise.all([connectDb({ databaseUrl: target.url }), connectDb({ databaseUrl: target.url })]);
    try {
      const [first, second] = await Promise.all([migrate(a), migrate(b)]);
      const all = (await loadMigrations()).map((migration) => migration.version);
      expect([...first, ...second].sort()).toEqual(all);
      const rows = await a.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.version)).toEqual(all);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await target.drop();
    }
  });

  it('two `vigil migrate` processes against a fresh schema both exit 0; between them every migration is applied once', async () => {
    const target = await tempPostgresSchema();
    try {
      const runs = await Promise.all([runCliJson<{ applied: string[] }>(['migrate'], target.env), runCliJson<{ applied: string[] }>(['migrate'], target.env)]);
      const all = (await loadMigrations()).map((migration) => migration.version);
      expect(runs.flatMap((run) => run.applied).sort()).toEqual(all);
      const check = await connectDb({ databaseUrl: target.url });
      const rows = await check.query<{ version: string; tables: number }>(
        `SELECT version, (SELECT count(*)::int FROM information_schema.tables WHERE table_schema = $1) AS tables
           FROM schema_migrations ORDER BY version`,
        [target.schema],
      );
      await check.close();
      expect(rows.map((row) => row.version)).toEqual(all);
      expect(rows[0].tables).toBeGreaterThan(1);
    } finally {
      await target.drop();
    }
  });
});

describe('vigil migrate on the embedded database', () => {
  it('applies the migrations into VIGIL_DATA_DIR, then reports the database up to date', async () => {
    const data = await tempDataDir();
    try {
      const all = (await loadMigrations()).map((migration) => migration.version);
      const first = await runCli(['migrate'], { VIGIL_DATA_DIR: data.dir });
      expect(first).toMatchObject({ code: 0, stdout: `Applied ${all.join(', ')}\n` });
      const again = await runCliJson(['migrate'], { VIGIL_DATA_DIR: data.dir });
      expect(again).toEqual({ applied: [] });
    } finally {
      await data.remove();
    }
  });
});
