import mysql, { type FieldPacket } from 'mysql2';
import type { ColumnType } from '../../data/column-types.js';
import type { TableRecord } from '../../data/table-record.js';
import { connectTimeoutMs, type SourceDriver, type SourceResult, type SourceTarget, statementTimeoutMs } from './source.js';

/** mysql2 column type codes → dataset column types; TINYINT(1) is MySQL's boolean. */
function typeOfField(field: FieldPacket): ColumnType {
  switch (field.columnType) {
    case 1:
      return field.columnLength === 1 ? 'boolean' : 'integer';
    case 2:
    case 3:
    case 8:
    case 9:
    case 13:
      return 'integer';
    case 0:
    case 4:
    case 5:
    case 246:
      return 'numeric';
    case 10:
    case 14:
      return 'date';
    case 7:
    case 12:
      return 'timestamp';
    default:
      return 'text';
  }
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function open(target: SourceTarget, ssl: boolean): mysql.Connection {
  const connection = mysql.createConnection({
    host: target.address,
    port: target.port,
    database: target.database,
    user: target.username,
    password: target.password,
    connectTimeout: connectTimeoutMs,
    ssl: ssl ? { rejectUnauthorized: false } : undefined,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    timezone: 'Z',
  });
  connection.on('error', () => undefined);
  return connection;
}

async function connect(target: SourceTarget): Promise<mysql.Connection> {
  const attempts = target.sslMode === 'disable' ? [false] : target.sslMode === 'require' ? [true] : [true, false];
  let lastError: unknown;
  for (const ssl of attempts) {
    const connection = open(target, ssl);
    try {
      await connection.promise().connect();
      return connection;
    } catch (error) {
      lastError = error;
      connection.destroy();
      if (!/secure conn/i.test(String((error as Error).message))) break;
    }
  }
  throw lastError;
}

/** MariaDB limits statements with max_statement_time (seconds), MySQL SELECTs with max_execution_time (ms). */
async function limitStatementTime(connection: mysql.Connection): Promise<void> {
  const session = connection.promise();
  try {
    await session.query(`SET SESSION max_statement_time = ${statementTimeoutMs / 1000}`);
  } catch {
    await session.query(`SET SESSION max_execution_time = ${statementTimeoutMs}`);
  }
}

function fieldsOf(query: mysql.Query): Promise<FieldPacket[]> {
  return new Promise((resolve, reject) => {
    query.once('fields', (fields: FieldPacket[]) => resolve(fields));
    query.once('error', reject);
    query.once('end', () => resolve([]));
  });
}

export const mysqlSource: SourceDriver = {
  async test(target) {
    const connection = await connect(target);
    try {
      await connection.promise().query('SELECT 1');
    } finally {
      connection.destroy();
    }
  },

  async read<T>(target: SourceTarget, sql: string, consume: (result: SourceResult) => Promise<T>): Promise<T> {
    const connection = await connect(target);
    try {
      const session = connection.promise();
      await session.query(`SET time_zone = '+00:00'`);
      await limitStatementTime(connection);
      await session.query('START TRANSACTION READ ONLY');
      const query = connection.query({ sql, rowsAsArray: true });
      const fields = fieldsOf(query);
      const rows = query.stream({ objectMode: true, highWaterMark: 1000 });
      const headers = await fields;
      async function* records(): AsyncGenerator<TableRecord[]> {
        let batch: TableRecord[] = [];
        let rowNumber = 0;
        for await (const row of rows as AsyncIterable<unknown[]>) {
          batch.push({ values: row.map(cell), rowNumber: ++rowNumber });
          if (batch.length === 1000) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      }
      const result = await consume({ headers: headers.map((field) => field.name), types: headers.map(typeOfField), records: records() });
      await session.query('COMMIT');
      return result;
    } finally {
      connection.destroy();
    }
  },
};
