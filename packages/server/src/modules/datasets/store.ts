import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { DatasetColumn } from '../../data/column-types.js';
import { quoteIdentifier } from '../../data/identifiers.js';
import type { PageWindow } from '../../platform/pagination.js';
import { projectSchemaName } from '../../platform/project-schema.js';
import type { Dataset, DatasetSource, DatasetStatus } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface DatasetRow {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  table_name: string;
  status: DatasetStatus;
  source: DatasetSource;
  connection_id: string | null;
  row_count: number | string;
  size_bytes: number | string;
  columns: DatasetColumn[];
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

const toDataset = (row: DatasetRow): Dataset => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  tableName: row.table_name,
  status: row.status,
  source: row.source,
  connectionId: row.connection_id,
  rowCount: Number(row.row_count),
  columns: row.columns,
  sizeBytes: Number(row.size_bytes),
  error: row.error,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export interface NewDataset {
  id: string;
  projectId: string;
  name: string;
  tableName: string;
  source: DatasetSource;
  connectionId: string | null;
}

/** Inserts an `importing` dataset, or undefined when its table name is already taken in the project. */
export async function insertDataset(db: Queryable, orgId: string, input: NewDataset, at: Date): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(
    `INSERT INTO datasets (id, org_id, project_id, name, table_name, status, source, connection_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'importing', $6, $7, $8, $8)
     ON CONFLICT (project_id, table_name) DO NOTHING RETURNING *`,
    [input.id, orgId, input.projectId, input.name, input.tableName, input.source, input.connectionId, at],
  );
  return row ? toDataset(row) : undefined;
}

export async function tableNamesLike(db: Queryable, projectId: string, base: string): Promise<Set<string>> {
  const rows = await db.query<{ table_name: string }>(
    `SELECT table_name FROM datasets WHERE project_id = $1 AND (table_name = $2 OR table_name LIKE $3)`,
    [projectId, base, `${base.slice(0, 40)}%`],
  );
  return new Set(rows.map((row) => row.table_name));
}

export async function findDataset(db: Queryable, orgId: string, id: string): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(`SELECT * FROM datasets WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return row ? toDataset(row) : undefined;
}

export async function listDatasets(db: Queryable, orgId: string, projectId: string | undefined, window: PageWindow): Promise<Dataset[]> {
  return (await selectPage<DatasetRow>(db, { from: 'datasets', orgId, where: { project_id: projectId }, window })).map(toDataset);
}

export interface LoadedData {
  columns: DatasetColumn[];
  rowCount: number;
  sizeBytes: number;
}

/** Marks an importing dataset ready; undefined when it was deleted meanwhile. */
export async function markReady(db: Queryable, id: string, loaded: LoadedData, at: Date): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(
    `UPDATE datasets SET status = 'ready', columns = $2, row_count = $3, size_bytes = $4, error = NULL, updated_at = $5
     WHERE id = $1 AND status = 'importing' RETURNING *`,
    [id, JSON.stringify(loaded.columns), loaded.rowCount, loaded.sizeBytes, at],
  );
  return row ? toDataset(row) : undefined;
}

/** Puts a ready or failed dataset back to importing for a replacement; undefined when it is importing already. */
export async function markReimporting(db: Queryable, id: string, connectionId: string, at: Date): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(
    `UPDATE datasets SET status = 'importing', source = 'connection', connection_id = $2, error = NULL, updated_at = $3
     WHERE id = $1 AND status <> 'importing' RETURNING *`,
    [id, connectionId, at],
  );
  return row ? toDataset(row) : undefined;
}

export async function markFailed(db: Queryable, id: string, error: string, at: Date): Promise<void> {
  await db.query(`UPDATE datasets SET status = 'failed', error = $2, updated_at = $3 WHERE id = $1`, [id, error, at]);
}

export async function abandonedUploads(db: Queryable, updatedBefore: Date): Promise<Dataset[]> {
  const rows = await db.query<DatasetRow>(
    `SELECT * FROM datasets WHERE source = 'upload' AND status = 'importing' AND updated_at < $1 ORDER BY id LIMIT 100`,
    [updatedBefore],
  );
  return rows.map(toDataset);
}

/** Removes a dataset row whatever its organization: for the service's own clean-ups, by id it holds. */
export async function deleteDatasetById(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM datasets WHERE id = $1', [id]);
}

export async function deleteDatasetRow(db: Queryable, orgId: string, id: string): Promise<Dataset | undefined> {
  const [row] = await db.query<DatasetRow>(`DELETE FROM datasets WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id]);
  return row ? toDataset(row) : undefined;
}

/** Removes every table of a project's datasets; runs in the transaction that deletes the project. */
export async function dropProjectSchema(db: Queryable, projectId: string): Promise<void> {
  await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(projectSchemaName(projectId))} CASCADE`);
}
