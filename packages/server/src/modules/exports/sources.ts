import type { Queryable } from '../../db/connect.js';
import type { ExportColumn, ExportRow } from '../../data/export-writers.js';
import { scanRows } from '../../data/table-reader.js';
import { projectSchemaName } from '../../platform/project-schema.js';
import type { Dataset } from '../datasets/schema.js';
import type { ExportFilters } from './schema.js';

/** What an export reads: its columns, and its rows a batch at a time. */
export interface ExportSource {
  columns: ExportColumn[];
  batches: AsyncIterable<ExportRow[]>;
}

const batchSize = 2000;
const text = (name: string): ExportColumn => ({ name, type: 'text' });
const timestamp = (name: string): ExportColumn => ({ name, type: 'timestamp' });
const integer = (name: string): ExportColumn => ({ name, type: 'integer' });

interface Scope {
  orgId: string;
  projectId: string | null;
  filters: ExportFilters;
}

/**
 * An organization's rows of `table`, oldest first, by keyset on id so that memory holds one batch
 * and rows inserted meanwhile neither repeat nor shift the pages.
 */
async function* keysetBatches(db: Queryable, table: string, select: string, scope: Scope, extra: Record<string, unknown>): AsyncGenerator<ExportRow[]> {
  const params: unknown[] = [scope.orgId];
  const conditions = ['org_id = $1'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    conditions.push(sql.replace('?', `$${params.length}`));
  };
  if (scope.projectId) add('project_id = ?', scope.projectId);
  for (const [column, value] of Object.entries(extra)) if (value !== undefined) add(`${column} = ?`, value);
  if (scope.filters.createdFrom) add('created_at >= ?', new Date(scope.filters.createdFrom));
  if (scope.filters.createdTo) add('created_at < ?', new Date(scope.filters.createdTo));
  const after = params.length + 1;
  const sql = `SELECT ${select} FROM ${table} WHERE ${conditions.join(' AND ')} AND id > $${after} ORDER BY id LIMIT ${batchSize}`;
  for (let last = ''; ; ) {
    const rows = await db.query<ExportRow & { id: string }>(sql, [...params, last]);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    last = rows[rows.length - 1].id;
  }
}

const iso = (column: string, as: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "${as}"`;

export function alertsSource(db: Queryable, scope: Scope): ExportSource {
  return {
    columns: [
      text('id'), text('projectId'), text('title'), text('description'), text('severity'), text('status'), text('area'),
      text('value'), text('threshold'), text('assigneeId'), timestamp('createdAt'), timestamp('updatedAt'),
      timestamp('acknowledgedAt'), timestamp('resolvedAt'), text('dedupKey'), integer('occurrences'), timestamp('lastSeenAt'),
    ],
    batches: keysetBatches(
      db,
      'alerts',
      `id, project_id AS "projectId", title, description, severity, status, area, value, threshold, assignee_id AS "assigneeId",
       ${iso('created_at', 'createdAt')}, ${iso('updated_at', 'updatedAt')}, ${iso('acknowledged_at', 'acknowledgedAt')}, ${iso('resolved_at', 'resolvedAt')},
       dedup_key AS "dedupKey", occurrences, ${iso('coalesce(last_seen_at, created_at)', 'lastSeenAt')}`,
      scope,
      { status: scope.filters.status, severity: scope.filters.severity },
    ),
  };
}

/** The AI query history (table `queries`, migration 0300). */
export function historySource(db: Queryable, scope: Scope): ExportSource {
  return {
    columns: [
      text('id'), text('projectId'), text('question'), text('answer'), text('sql'), integer('rowCount'), integer('tokens'),
      text('model'), text('status'), integer('durationMs'), timestamp('createdAt'),
    ],
    batches: keysetBatches(
      db,
      'queries',
      `id, project_id AS "projectId", question, answer, sql, row_count AS "rowCount", tokens, model, status,
       duration_ms AS "durationMs", ${iso('created_at', 'createdAt')}`,
      scope,
      { status: scope.filters.status },
    ),
  };
}

export function datasetSource(db: Queryable, dataset: Dataset): ExportSource {
  const at = { schema: projectSchemaName(dataset.projectId), table: dataset.tableName, columns: dataset.columns };
  return { columns: dataset.columns.map(({ name, type }) => ({ name, type })), batches: scanRows(db, at, 5000) };
}
