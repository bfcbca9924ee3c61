import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Connection, ConnectionStatus, DbType, SslMode } from './schema.js';
import { isoOrNull, isoTimestamp } from '../../db/timestamps.js';

export interface ConnectionRow {
  id: string;
  org_id: string;
  name: string;
  db_type: DbType;
  host: string;
  port: number;
  database: string;
  username: string;
  password_sealed: string;
  ssl_mode: SslMode;
  status: ConnectionStatus;
  last_error: string | null;
  last_checked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const toConnection = (row: ConnectionRow): Connection => ({
  id: row.id,
  name: row.name,
  dbType: row.db_type,
  host: row.host,
  port: row.port,
  database: row.database,
  username: row.username,
  sslMode: row.ssl_mode,
  status: row.status,
  lastError: row.last_error,
  lastCheckedAt: isoOrNull(row.last_checked_at),
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export interface ConnectionColumns {
  name?: string;
  db_type?: DbType;
  host?: string;
  port?: number;
  database?: string;
  username?: string;
  password_sealed?: string;
  ssl_mode?: SslMode;
  status?: ConnectionStatus;
  last_error?: string | null;
  last_checked_at?: Date;
  updated_at: Date;
}

export type NewConnectionColumns = Omit<Required<ConnectionColumns>, 'status' | 'last_error' | 'last_checked_at'>;

export async function insertConnection(db: Queryable, orgId: string, id: string, columns: NewConnectionColumns): Promise<ConnectionRow> {
  const [row] = await db.query<ConnectionRow>(
    `INSERT INTO db_connections (id, org_id, name, db_type, host, port, database, username, password_sealed, ssl_mode, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11) RETURNING *`,
    [id, orgId, columns.name, columns.db_type, columns.host, columns.port, columns.database, columns.username, columns.password_sealed, columns.ssl_mode, columns.updated_at],
  );
  return row;
}

export async function findConnectionRow(db: Queryable, orgId: string, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await db.query<ConnectionRow>(`SELECT * FROM db_connections WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return row;
}

export async function listConnections(db: Queryable, orgId: string, window: PageWindow): Promise<Connection[]> {
  return (await selectPage<ConnectionRow>(db, { from: 'db_connections', orgId, window })).map(toConnection);
}

export function updateConnectionRow(db: Queryable, orgId: string, id: string, columns: ConnectionColumns): Promise<ConnectionRow | undefined> {
  return updateOwnedRow<ConnectionRow>(db, 'db_connections', orgId, id, { ...columns });
}

export async function deleteConnectionRow(db: Queryable, orgId: string, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await db.query<ConnectionRow>(`DELETE FROM db_connections WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id]);
  return row;
}
