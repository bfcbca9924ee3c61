import pg from 'pg';
import type { Queryable } from '../db/connect.js';
import { alertsViewName, type ProjectReaders } from './project-reader.js';
import { readCapped, type ResultRow } from './sql-runner.js';

export interface ColumnDescription {
  name: string;
  type: string;
  /** The header in the uploaded file or source table, when it differs from the SQL name. */
  originalName?: string;
}

export interface TableDescription {
  name: string;
  about: string;
  rowCount: number;
  columns: ColumnDescription[];
  samples: ResultRow[];
}

const sampleRows = 3;
const maxTables = 50;
const maxSampleText = 60;

const alertColumns: ColumnDescription[] = [
  { name: 'id', type: 'text' },
  { name: 'project_id', type: 'text' },
  { name: 'title', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'severity', type: "text: 'critical' | 'high' | 'medium' | 'low' | 'info'" },
  { name: 'status', type: "text: 'active' | 'acknowledged' | 'resolved'" },
  { name: 'area', type: 'text' },
  { name: 'value', type: 'text' },
  { name: 'threshold', type: 'text' },
  { name: 'assignee_id', type: 'text' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at', type: 'timestamptz' },
  { name: 'acknowledged_at', type: 'timestamptz' },
  { name: 'resolved_at', type: 'timestamptz' },
];

export interface DatasetRow {
  id: string;
  name: string;
  table_name: string;
  row_count: number | string;
  columns: { name: string; originalName?: string; type: string }[];
}

/** Ready datasets only: an import still running or failed has no table worth offering. */
function readyDatasets(db: Queryable, orgId: string, projectId: string): Promise<DatasetRow[]> {
  return db.query<DatasetRow>(
    `SELECT id, name, table_name, row_count, columns FROM datasets
     WHERE org_id = $1 AND project_id = $2 AND status = 'ready' ORDER BY id LIMIT $3`,
    [orgId, projectId, maxTables],
  );
}

const shorten = (row: ResultRow): ResultRow =>
  Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'string' && value.length > maxSampleText ? `${value.slice(0, maxSampleText)}…` : value,
    ]),
  );

/** The project's ready datasets, granted to its read-only role: what SQL run for the project may read besides its alerts. */
export async function grantReadableDatasets(db: Queryable, readers: ProjectReaders, orgId: string, projectId: string): Promise<DatasetRow[]> {
  const datasets = await readyDatasets(db, orgId, projectId);
  await readers.ensure(orgId, projectId, datasets.map((dataset) => ({ id: dataset.id, table: dataset.table_name })));
  return datasets;
}

/**
 * What the model is told about a project: its alerts view and its ready datasets, each with
 * columns, types and a few sample rows read as the project's role (so nothing is shown that the
 * model could not query itself).
 */
export async function describeProject(
  db: Queryable,
  readers: ProjectReaders,
  orgId: string,
  projectId: string,
): Promise<TableDescription[]> {
  const datasets = await grantReadableDatasets(db, readers, orgId, projectId);
  return readers.read(projectId, 5_000, async (tx) => {
    const samples = async (table: string) =>
      (await readCapped(tx, `SELECT * FROM ${pg.escapeIdentifier(table)}`, sampleRows)).rows.map(shorten);
    const [{ count }] = await tx.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${alertsViewName}`);
    const tables: TableDescription[] = [
      { name: alertsViewName, about: "the project's alerts", rowCount: count, columns: alertColumns, samples: await samples(alertsViewName) },
    ];
    for (const dataset of datasets) {
      tables.push({
        name: dataset.table_name,
        about: `dataset "${dataset.name}"`,
        rowCount: Number(dataset.row_count),
        columns: dataset.columns.map((column) => ({
          name: column.name,
          type: column.type,
          ...(column.originalName && column.originalName !== column.name ? { originalName: column.originalName } : {}),
        })),
        samples: await samples(dataset.table_name),
      });
    }
    return tables;
  });
}
