import pg from 'pg';
import { type ColumnType, sqlTypeOf } from '../../data/column-types.js';
import { invalid } from '../../platform/errors.js';
import type { StructuredQuery, WidgetKind } from './schema.js';

/** A table a structured query reads: its name in the project's schema and its real columns. */
export interface QuerySource {
  table: string;
  /** Column name as the query names it → its SQL name and type. */
  columns: ReadonlyMap<string, { sql: string; type: ColumnType }>;
}

export interface CompiledQuery {
  sql: string;
  params: unknown[];
  /** The result's columns, in order. */
  columns: string[];
  /** Rows kept; the statement reads one more to know whether the result was cut. */
  limit: number;
}

/** The alerts source, over the project's `alerts` view (ai/project-reader.ts), with the REST field names. */
export const alertsSource: QuerySource = {
  table: 'alerts',
  columns: new Map<string, { sql: string; type: ColumnType }>([
    ['id', { sql: 'id', type: 'text' }],
    ['projectId', { sql: 'project_id', type: 'text' }],
    ['title', { sql: 'title', type: 'text' }],
    ['description', { sql: 'description', type: 'text' }],
    ['severity', { sql: 'severity', type: 'text' }],
    ['status', { sql: 'status', type: 'text' }],
    ['area', { sql: 'area', type: 'text' }],
    ['value', { sql: 'value', type: 'text' }],
    ['threshold', { sql: 'threshold', type: 'text' }],
    ['assigneeId', { sql: 'assignee_id', type: 'text' }],
    ['createdAt', { sql: 'created_at', type: 'timestamp' }],
    ['updatedAt', { sql: 'updated_at', type: 'timestamp' }],
    ['acknowledgedAt', { sql: 'acknowledged_at', type: 'timestamp' }],
    ['resolvedAt', { sql: 'resolved_at', type: 'timestamp' }],
  ]),
};

/** What an `alerts` widget lists when the query names no columns: the newest first. */
const alertListColumns = ['id', 'title', 'severity', 'status', 'createdAt'];
const defaultLimit = { grouped: 100, listed: 100, alerts: 10 };

const numeric = new Set<ColumnType>(['integer', 'numeric']);
const ordered = new Set<ColumnType>(['integer', 'numeric', 'date', 'timestamp']);
const temporal = new Set<ColumnType>(['date', 'timestamp']);

const quote = (name: string) => pg.escapeIdentifier(name);

/**
 * Turns a structured widget query into one parameterised SELECT. Every column is looked up in the
 * source's real columns first and written quoted; every value travels as a parameter, cast to the
 * column's type. `field` prefixes the names in validation errors (`widgets[2].query`).
 */
export function compileStructured(query: StructuredQuery, kind: WidgetKind, source: QuerySource, field: string): CompiledQuery {
  const column = (name: string, at: string) => {
    const found = source.columns.get(name);
    if (!found) throw invalid(`${field}.${at}`, `names no column "${name}"; columns: ${[...source.columns.keys()].join(', ')}`);
    return found;
  };
  const params: unknown[] = [];
  const param = (value: unknown, type: ColumnType) => {
    params.push(value);
    return `$${params.length}::${sqlTypeOf[type]}`;
  };

  const where = (query.filters ?? []).map((filter, index) => {
    const at = `filters[${index}]`;
    const target = column(filter.column, `${at}.column`);
    const values = Array.isArray(filter.value) ? filter.value : [filter.value];
    if ((filter.op === 'in') !== Array.isArray(filter.value)) {
      throw invalid(`${field}.${at}.value`, filter.op === 'in' ? 'must be an array for "in"' : `must be a single value for "${filter.op}"`);
    }
    values.forEach((value) => checkValue(value, target.type, `${field}.${at}.value`));
    if (filter.op === 'in') {
      params.push(values);
      return `${quote(target.sql)} = ANY($${params.length}::${sqlTypeOf[target.type]}[])`;
    }
    const operator = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.op];
    return `${quote(target.sql)} ${operator} ${param(filter.value, target.type)}`;
  });
  const whereClause = where.length ? `\nWHERE ${where.join(' AND ')}` : '';
  const from = `FROM ${quote(source.table)}${whereClause}`;

  if (kind === 'alerts') {
    if (source !== alertsSource) throw invalid(`${field}.source`, 'must be "alerts" for an alerts widget');
    if (query.measure || query.groupBy) throw invalid(`${field}.measure`, 'is not used by an alerts widget, which lists alerts');
  }

  let select: string[];
  let columns: string[];
  let outputs: Map<string, string>;
  let order: { column: string; direction: 'asc' | 'desc' } | undefined;
  let group = '';
  if (query.measure) {
    const { fn } = query.measure;
    const target = query.measure.column === undefined ? undefined : column(query.measure.column, 'measure.column');
    if (fn !== 'count' && !target) throw invalid(`${field}.measure.column`, `is required for ${fn}`);
    const allowed = fn === 'sum' || fn === 'avg' ? numeric : fn === 'count' ? undefined : ordered;
    if (target && allowed && !allowed.has(target.type)) {
      throw invalid(`${field}.measure.column`, `is ${target.type}; ${fn} needs a ${[...allowed].join(', ')} column`);
    }
    // Numbers leave as float8 so JSON carries them as numbers (pg hands bigint and numeric over as text).
    const asNumber = fn === 'count' || (target !== undefined && numeric.has(target.type));
    const value = `${fn}(${target ? quote(target.sql) : '*'})${asNumber ? '::float8' : ''}`;
    if (query.bucket && !query.groupBy) throw invalid(`${field}.bucket`, 'needs a groupBy column');
    if (query.groupBy !== undefined) {
      const target = column(query.groupBy, 'groupBy');
      let label = quote(target.sql);
      if (query.bucket) {
        if (!temporal.has(target.type)) throw invalid(`${field}.bucket`, `needs a date or timestamp groupBy column; ${query.groupBy} is ${target.type}`);
        // A date bucket stays a date ('2026-01-01'); the driver would turn a bare date into local midnight.
        label = `date_trunc('${query.bucket}', ${label})${target.type === 'date' ? '::date::text' : ''}`;
      }
      select = [`${label} AS ${quote(query.groupBy)}`, `${value} AS ${quote(fn)}`];
      columns = [query.groupBy, fn];
      outputs = new Map([[query.groupBy, quote(query.groupBy)], [fn, quote(fn)]]);
      group = '\nGROUP BY 1';
      order = query.bucket ? { column: query.groupBy, direction: 'asc' } : { column: fn, direction: 'desc' };
    } else {
      select = [`${value} AS ${quote(fn)}`];
      columns = [fn];
      outputs = new Map([[fn, quote(fn)]]);
    }
  } else {
    if (kind !== 'table' && kind !== 'alerts') throw invalid(`${field}.measure`, `is required for a ${kind} widget`);
    if (query.groupBy || query.bucket) throw invalid(`${field}.measure`, 'is required with groupBy');
    columns = query.columns ?? (kind === 'alerts' ? alertListColumns : [...source.columns.keys()]);
    select = columns.map((name, index) => `${quote(column(name, `columns[${index}]`).sql)} AS ${quote(name)}`);
    outputs = new Map([...source.columns.keys()].map((name) => [name, quote(source.columns.get(name)?.sql ?? name)]));
    // Alert ids are time-sortable and unique: newest first, with no ties between alerts of the same millisecond.
    if (source === alertsSource) order = { column: 'id', direction: 'desc' };
  }

  if (query.orderBy) {
    if (!outputs.has(query.orderBy.column)) {
      throw invalid(`${field}.orderBy.column`, `must be one of ${[...outputs.keys()].join(', ')}`);
    }
    order = { column: query.orderBy.column, direction: query.orderBy.direction ?? 'asc' };
  }
  const orderClause = order ? `\nORDER BY ${outputs.get(order.column)} ${order.direction.toUpperCase()} NULLS LAST` : '';
  const limit = query.limit ?? (query.measure ? defaultLimit.grouped : kind === 'alerts' ? defaultLimit.alerts : defaultLimit.listed);
  params.push(limit + 1);
  const sql = `SELECT ${select.join(', ')}\n${from}${group}${orderClause}\nLIMIT $${params.length}`;
  return { sql, params, columns, limit };
}

/** A filter value must fit its column, so a typo is a clear 422 rather than a failed cast at read time. */
function checkValue(value: unknown, type: ColumnType, field: string): void {
  const fits =
    numeric.has(type) ? typeof value === 'number' && (type !== 'integer' || Number.isInteger(value))
    : type === 'boolean' ? typeof value === 'boolean'
    : temporal.has(type) ? typeof value === 'string' && !Number.isNaN(Date.parse(value))
    : typeof value === 'string';
  if (!fits) throw invalid(field, `must be ${type === 'integer' ? 'an integer' : type === 'text' ? 'a string' : `a ${type}`} value`);
}
