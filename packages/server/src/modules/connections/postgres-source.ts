import pg from 'pg';
import Cursor from 'pg-cursor';
import type { ColumnType } from '../../data/column-types.js';
import type { TableRecord } from '../../data/table-record.js';
import { connectTimeoutMs, type SourceDriver, type SourceResult, type SourceTarget, statementTimeoutMs } from './source.js';

const batchRows = 5000;

/** Built-in type oids → dataset column types; anything else arrives as PostgreSQL's text form. */
const typeOfOid = new Map<number, ColumnType>([
  [20, 'integer'],
  [21, 'integer'],
  [23, 'integer'],
  [700, 'numeric'],
  [701, 'numeric'],
  [1700, 'numeric'],
  [16, 'boolean'],
  [1082, 'date'],
  [1114, 'timestamp'],
  [1184, 'timestamp'],
]);

/** Every value as the text PostgreSQL sends: the dataset loader parses it into its own column types. */
const asText = { getTypeParser: () => (value: string) => value } as unknown as typeof pg.types;

function clientFor(target: SourceTarget, ssl: boolean): pg.Client {
  return new pg.Client({
    host: target.address,
    port: target.port,
    database: target.database,
    user: target.username,
    password: target.password,
    ssl: ssl ? { rejectUnauthorized: false, servername: target.host } : false,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'vigil-import',
    types: asText,
  });
}

/** sslMode as libpq reads it: prefer tries TLS first and falls back to plain when the server has none. */
async function connect(target: SourceTarget): Promise<pg.Client> {
  const attempts = target.sslMode === 'disable' ? [false] : target.sslMode === 'require' ? [true] : [true, false];
  let lastError: unknown;
  for (const ssl of attempts) {
    const client = clientFor(target, ssl);
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
      if (!/does not support SSL/i.test(String((error as Error).message))) break;
    }
  }
  throw lastError;
}

interface ReadResult {
  rows: unknown[][];
  fields: { name: string; dataTypeID: number }[];
}

const readBatch = (cursor: Cursor, count: number) =>
  new Promise<ReadResult>((resolve, reject) =>
    cursor.read(count, (error, rows, result) => (error ? reject(error) : resolve({ rows: rows as unknown[][], fields: result?.fields ?? [] }))),
  );

const cell = (value: unknown) => (value === null || value === undefined ? '' : String(value));

export const postgresSource: SourceDriver = {
  async test(target) {
    const client = await connect(target);
    try {
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  },

  async read<T>(target: SourceTarget, sql: string, consume: (result: SourceResult) => Promise<T>): Promise<T> {
    const client = await connect(target);
    try {
      await client.query('BEGIN TRANSACTION READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${statementTimeoutMs}`);
      const cursor = client.query(new Cursor(sql, [], { rowMode: 'array' }));
      const first = await readBatch(cursor, batchRows);
      async function* records(): AsyncGenerator<TableRecord[]> {
        let rowNumber = 0;
        for (let batch = first.rows; batch.length > 0; batch = (await readBatch(cursor, batchRows)).rows) {
          yield batch.map((row) => ({ values: row.map(cell), rowNumber: ++rowNumber }));
        }
      }
      const result = await consume({
        headers: first.fields.map((field) => field.name),
        types: first.fields.map((field) => typeOfOid.get(field.dataTypeID) ?? 'text'),
        records: records(),
      });
      await cursor.close();
      await client.query('COMMIT');
      return result;
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};
