import pg from 'pg';

export const defaultBenchDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/vigil_bench';

export interface BenchDatabase {
  url: string;
  /** How the database was chosen, for the report. */
  origin: string;
  serverVersion: string;
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await client.end();
  }
}

/**
 * `DATABASE_URL` when the caller set one (used as it is), else a database of this name (by default
 * `vigil_bench`) on the local PostgreSQL, dropped and made again so that every run starts from the
 * same empty state.
 */
export async function benchDatabase(name = 'vigil_bench'): Promise<BenchDatabase> {
  const configured = process.env.DATABASE_URL;
  if (configured) return { url: configured, origin: 'DATABASE_URL', serverVersion: await serverVersion(configured) };
  const url = new URL(defaultBenchDatabaseUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).href });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return {
    url: url.href,
    origin: `DATABASE_URL unset: the local PostgreSQL, database ${name} made afresh for this run`,
    serverVersion: await serverVersion(url.href),
  };
}
