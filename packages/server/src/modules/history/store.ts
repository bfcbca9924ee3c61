import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { HistoryFilters, QueryRecord, QueryRecordWithRows, QueryStatus } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface QueryRow {
  id: string;
  project_id: string;
  question: string;
  answer: string;
  sql: string | null;
  rows: Record<string, unknown>[] | null;
  row_count: number;
  tokens: number;
  model: string;
  status: QueryStatus;
  duration_ms: number;
  api_key_id: string | null;
  user_id: string | null;
  created_at: Date;
}

const toRecord = (row: QueryRow): QueryRecord => ({
  id: row.id,
  projectId: row.project_id,
  question: row.question,
  answer: row.answer,
  sql: row.sql,
  rowCount: row.row_count,
  tokens: row.tokens,
  model: row.model,
  status: row.status,
  durationMs: row.duration_ms,
  apiKeyId: row.api_key_id,
  userId: row.user_id,
  createdAt: isoTimestamp(row.created_at),
});

const withRows = (row: QueryRow): QueryRecordWithRows => ({ ...toRecord(row), rows: row.rows });

export interface NewQuery {
  id: string;
  projectId: string;
  question: string;
  answer: string;
  sql: string | null;
  rows: Record<string, unknown>[] | null;
  tokens: number;
  model: string;
  status: QueryStatus;
  durationMs: number;
  apiKeyId: string | null;
  userId: string | null;
  createdAt: Date;
}

export async function insertQuery(db: Queryable, orgId: string, query: NewQuery): Promise<QueryRecordWithRows> {
  const [row] = await db.query<QueryRow>(
    `INSERT INTO queries (id, org_id, project_id, question, answer, sql, rows, row_count, tokens, model, status,
                          duration_ms, api_key_id, user_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
    [
      query.id,
      orgId,
      query.projectId,
      query.question,
      query.answer,
      query.sql,
      query.rows === null ? null : JSON.stringify(query.rows),
      query.rows?.length ?? 0,
      query.tokens,
      query.model,
      query.status,
      query.durationMs,
      query.apiKeyId,
      query.userId,
      query.createdAt,
    ],
  );
  return withRows(row);
}

export async function findQuery(db: Queryable, orgId: string, id: string): Promise<QueryRecordWithRows | undefined> {
  const [row] = await db.query<QueryRow>('SELECT * FROM queries WHERE org_id = $1 AND id = $2', [orgId, id]);
  return row ? withRows(row) : undefined;
}

export async function listQueries(db: Queryable, orgId: string, filters: HistoryFilters, window: PageWindow): Promise<QueryRecord[]> {
  const rows = await selectPage<QueryRow>(db, { from: 'queries', orgId, where: { project_id: filters.projectId }, window });
  return rows.map(toRecord);
}

export async function deleteQuery(db: Queryable, orgId: string, id: string): Promise<QueryRecord | undefined> {
  const [row] = await db.query<QueryRow>('DELETE FROM queries WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, id]);
  return row ? toRecord(row) : undefined;
}
