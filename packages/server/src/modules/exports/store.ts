import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { ExportFormat } from '../../data/export-writers.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Export, ExportFilters, ExportResource, ExportStatus } from './schema.js';
import { isoOrNull, isoTimestamp } from '../../db/timestamps.js';

export interface ExportRow {
  id: string;
  org_id: string;
  resource: ExportResource;
  format: ExportFormat;
  project_id: string | null;
  dataset_id: string | null;
  filters: ExportFilters;
  status: ExportStatus;
  error: string | null;
  file_name: string | null;
  size_bytes: number | string | null;
  row_count: number | string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date | null;
  file_removed_at: Date | null;
}

const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));

export const toExport = (row: ExportRow): Export => ({
  id: row.id,
  resource: row.resource,
  format: row.format,
  projectId: row.project_id,
  datasetId: row.dataset_id,
  filters: row.filters,
  status: row.status,
  error: row.error,
  fileName: row.file_name,
  sizeBytes: numberOrNull(row.size_bytes),
  rowCount: numberOrNull(row.row_count),
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
  completedAt: isoOrNull(row.completed_at),
  expiresAt: isoOrNull(row.expires_at),
});

export interface NewExport {
  id: string;
  resource: ExportResource;
  format: ExportFormat;
  projectId: string | null;
  datasetId: string | null;
  filters: ExportFilters;
}

export async function insertExport(db: Queryable, orgId: string, input: NewExport, at: Date): Promise<Export> {
  const [row] = await db.query<ExportRow>(
    `INSERT INTO exports (id, org_id, resource, format, project_id, dataset_id, filters, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $8) RETURNING *`,
    [input.id, orgId, input.resource, input.format, input.projectId, input.datasetId, JSON.stringify(input.filters), at],
  );
  return toExport(row);
}

export async function findExportRow(db: Queryable, orgId: string, id: string): Promise<ExportRow | undefined> {
  const [row] = await db.query<ExportRow>(`SELECT * FROM exports WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return row;
}

export async function listExports(db: Queryable, orgId: string, window: PageWindow): Promise<Export[]> {
  return (await selectPage<ExportRow>(db, { from: 'exports', orgId, window })).map(toExport);
}

export interface ExportOutcome {
  fileName: string;
  sizeBytes: number;
  rowCount: number;
  expiresAt: Date;
}

export async function markCompleted(db: Queryable, id: string, outcome: ExportOutcome, at: Date): Promise<void> {
  await db.query(
    `UPDATE exports SET status = 'completed', file_name = $2, size_bytes = $3, row_count = $4, completed_at = $5, updated_at = $5,
       expires_at = $6, lease_until = NULL WHERE id = $1`,
    [id, outcome.fileName, outcome.sizeBytes, outcome.rowCount, at, outcome.expiresAt],
  );
}

export async function markExportFailed(db: Queryable, id: string, error: string, at: Date): Promise<void> {
  await db.query(`UPDATE exports SET status = 'failed', error = $2, updated_at = $3, lease_until = NULL WHERE id = $1`, [id, error, at]);
}

/** Completed exports whose files are past their expiry and not removed yet. */
export async function expiredFiles(db: Queryable, at: Date): Promise<{ id: string; format: ExportFormat }[]> {
  return db.query(`SELECT id, format FROM exports WHERE expires_at <= $1 AND file_removed_at IS NULL ORDER BY expires_at LIMIT 500`, [at]);
}

/**
 * Deletes up to `limit` finished exports created before `before` whose files are past their expiry
 * (or never made); answers which, so that their files can go too.
 */
export async function deleteFinishedExports(db: Queryable, before: Date, now: Date, limit: number): Promise<{ id: string; format: ExportFormat }[]> {
  return db.query(
    `DELETE FROM exports WHERE id IN (
       SELECT id FROM exports
       WHERE status IN ('completed', 'failed') AND created_at < $1 AND (expires_at IS NULL OR expires_at <= $2)
       LIMIT $3 FOR UPDATE SKIP LOCKED
     ) RETURNING id, format`,
    [before, now, limit],
  );
}

export async function markFileRemoved(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(`UPDATE exports SET file_removed_at = $2 WHERE id = $1`, [id, at]);
}
