import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { postgresUrl } from './databases.js';

/** The machine's MariaDB/MySQL for import tests; VIGIL_TEST_MYSQL_URL overrides. */
export const mysqlUrl = process.env.VIGIL_TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';

/** Where VIGIL_TEST_MYSQL_URL is set (as CI sets it) the MariaDB tests must run: they are never skipped. */
export async function mysqlAvailable(): Promise<boolean> {
  if (process.env.VIGIL_TEST_MYSQL_URL) return true;
  try {
    const connection = await mysql.createConnection({ uri: mysqlUrl, connectTimeout: 2000 });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

export interface SourceDatabase {
  name: string;
  run(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** A throwaway database on the machine's PostgreSQL, dropped by `drop`. */
export async function postgresSourceDatabase(): Promise<SourceDatabase> {
  const name = `vigil_src_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    name,
    async run(sql) {
      await client.query(sql);
    },
    async drop() {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** A throwaway database on the machine's MariaDB, dropped by `drop`. */
export async function mysqlSourceDatabase(): Promise<SourceDatabase> {
  const name = `vigil_src_${randomBytes(5).toString('hex')}`;
  const connection = await mysql.createConnection({ uri: mysqlUrl, multipleStatements: true });
  await connection.query(`CREATE DATABASE ${name}`);
  await connection.query(`USE ${name}`);
  return {
    name,
    async run(sql) {
      await connection.query(sql);
    },
    async drop() {
      await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      await connection.end();
    },
  };
}
