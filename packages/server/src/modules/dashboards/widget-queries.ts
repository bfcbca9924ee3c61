import type { ColumnType } from '../../data/column-types.js';
import type { Db } from '../../db/connect.js';
import { DatabaseUnavailable } from '../../db/unavailable.js';
import { grantReadableDatasets } from '../../ai/project-data.js';
import { alertsViewName, type ProjectReaders } from '../../ai/project-reader.js';
import { guardSql } from '../../ai/sql-guard.js';
import { jsonRow, projectSqlFailure, runModelSql, type SqlLimits } from '../../ai/sql-runner.js';
import { ApiError, invalid } from '../../platform/errors.js';
import { alertsSource, compileStructured, type CompiledQuery, type QuerySource } from './query-compiler.js';
import { isSqlQuery, type StructuredQuery, type Widget, type WidgetInput, type WidgetResult } from './schema.js';

/** What a project's widgets may read: its alerts view and its ready datasets, already granted to its reader role. */
export interface ProjectTables {
  projectId: string;
  names: ReadonlySet<string>;
  datasets: ReadonlyMap<string, QuerySource>;
}

export const widgetSqlLimits: SqlLimits = { rowCap: 1000, statementTimeoutMs: 5_000 };

/**
 * Checks widget queries when they are saved and runs them when a dashboard is read. Both kinds run
 * as the project's read-only role inside a read-only transaction (ai/project-reader.ts); SQL goes
 * through the AI component's guard and runner unchanged, so a widget can read nothing a chat
 * question could not.
 */
export class WidgetQueries {
  constructor(
    private readonly db: Db,
    private readonly readers: ProjectReaders,
  ) {}

  async tables(orgId: string, projectId: string): Promise<ProjectTables> {
    const datasets = await grantReadableDatasets(this.db, this.readers, orgId, projectId);
    return {
      projectId,
      names: new Set([alertsViewName, ...datasets.map((dataset) => dataset.table_name)]),
      datasets: new Map(
        datasets.map((dataset) => [
          dataset.id,
          {
            table: dataset.table_name,
            columns: new Map(dataset.columns.map((column) => [column.name, { sql: column.name, type: column.type as ColumnType }])),
          },
        ]),
      ),
    };
  }

  /** A 422 naming the field for a query that could never run; nothing is read. */
  async check(tables: ProjectTables, widget: WidgetInput, field: string): Promise<void> {
    if (isSqlQuery(widget.query)) {
      const guarded = await guardSql(widget.query.sql, tables.names);
      if (!guarded.ok) throw invalid(`${field}.sql`, `is refused: ${guarded.reason}`);
      if (widget.kind === 'alerts') throw invalid(`${field}`, 'of an alerts widget must be a structured query with source "alerts"');
      return;
    }
    this.compile(tables, widget.query, widget.kind, field);
  }

  /** Every failure of the widget's own becomes its `error`, so one broken widget leaves the others readable. */
  async run(tables: ProjectTables, widget: Widget): Promise<WidgetResult> {
    const base = { id: widget.id, title: widget.title, kind: widget.kind };
    const failed = (error: string): WidgetResult => ({ ...base, columns: [], rows: [], truncated: false, error });
    if (isSqlQuery(widget.query)) {
      const outcome = await runModelSql(this.readers, tables.projectId, tables.names, widget.query.sql, widgetSqlLimits);
      if (!outcome.ok) return failed(outcome.error);
      return { ...base, columns: outcome.columns, rows: outcome.rows, truncated: outcome.truncated, error: null };
    }
    let compiled: CompiledQuery;
    try {
      compiled = this.compile(tables, widget.query, widget.kind, 'query');
    } catch (error) {
      if (error instanceof ApiError) return failed(error.message);
      throw error;
    }
    try {
      const rows = await this.readers.read(tables.projectId, widgetSqlLimits.statementTimeoutMs, (tx) => tx.query(compiled.sql, compiled.params));
      return {
        ...base,
        columns: compiled.columns,
        rows: rows.slice(0, compiled.limit).map(jsonRow),
        truncated: rows.length > compiled.limit,
        error: null,
      };
    } catch (error) {
      const explained = projectSqlFailure(error, widgetSqlLimits.statementTimeoutMs);
      if (explained) return failed(explained);
      // The database went away under the whole dashboard: the request answers 503, as a SQL widget's does.
      if (error instanceof DatabaseUnavailable) throw error;
      return failed(`The database refused the query: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private compile(tables: ProjectTables, query: StructuredQuery, kind: Widget['kind'], field: string): CompiledQuery {
    let source = alertsSource;
    if (query.source === 'dataset') {
      if (query.datasetId === undefined) throw invalid(`${field}.datasetId`, 'is required when the source is "dataset"');
      const dataset = tables.datasets.get(query.datasetId);
      if (!dataset) throw invalid(`${field}.datasetId`, `names no ready dataset of this project (${query.datasetId})`);
      source = dataset;
    } else if (query.datasetId !== undefined) {
      throw invalid(`${field}.datasetId`, 'is only used with the source "dataset"');
    }
    return compileStructured(query, kind, source, field);
  }
}
