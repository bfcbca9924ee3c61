import type { Queryable } from '../../db/connect.js';

/** An import waiting for, or held by, a worker (table dataset_imports). */
export interface ImportJobRow extends Record<string, unknown> {
  dataset_id: string;
  org_id: string;
  connection_id: string | null;
  source_table: string | null;
  source_query: string | null;
  replaces: boolean;
  attempts: number;
}

export const importJobs = { table: 'dataset_imports', key: 'dataset_id', state: 'state' };

export interface NewImportJob {
  datasetId: string;
  connectionId: string;
  table: string | null;
  query: string | null;
  replaces: boolean;
}

export async function insertImportJob(db: Queryable, orgId: string, job: NewImportJob, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO dataset_imports (dataset_id, org_id, connection_id, source_table, source_query, replaces, state, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)`,
    [job.datasetId, orgId, job.connectionId, job.table, job.query, job.replaces, at],
  );
}

export async function deleteImportJob(db: Queryable, datasetId: string): Promise<void> {
  await db.query('DELETE FROM dataset_imports WHERE dataset_id = $1', [datasetId]);
}
