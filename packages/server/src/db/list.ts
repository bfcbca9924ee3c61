import type { PageWindow } from '../platform/pagination.js';
import { columnName } from './columns.js';
import type { Queryable } from './connect.js';
import { type NamedStatement, namedStatement } from './named-statement.js';

export interface PageSelect {
  /** A table name from code, never from input. */
  from: string;
  orgId: string;
  /** Equality filters; undefined values are left out. Keys are column names from code. */
  where?: Record<string, unknown>;
  /** A case-insensitive substring filter on one text column (a column name from code); left out when `text` is undefined. */
  contains?: { column: string; text: string | undefined };
  window: PageWindow;
  /**
   * The columns to read (names from code). Given, the statement names them and is kept prepared on
   * each connection (a NamedStatement): planning it anew took PostgreSQL about as long as running
   * it. A prepared statement must name its columns, or the next migration that adds one fails it.
   */
  columns?: readonly string[];
}

/**
 * Each listing's statement by its text: the texts are made from code (a table, its columns and the
 * filters a request uses), so there are few, and each is hashed into its name once.
 */
const keptStatements = new Map<string, NamedStatement>();

function keptStatement(text: string): NamedStatement {
  let statement = keptStatements.get(text);
  if (statement === undefined) keptStatements.set(text, (statement = namedStatement(text)));
  return statement;
}

/** One page of an organization's rows, newest first, reading one extra row to learn whether more follow. */
export function selectPage<Row>(db: Queryable, select: PageSelect): Promise<Row[]> {
  const params: unknown[] = [select.orgId];
  const conditions = ['org_id = $1'];
  for (const [column, value] of Object.entries(select.where ?? {})) {
    if (value === undefined) continue;
    params.push(value);
    conditions.push(`${columnName(column)} = $${params.length}`);
  }
  if (select.contains?.text !== undefined) {
    params.push(select.contains.text.toLowerCase());
    conditions.push(`strpos(lower(${columnName(select.contains.column)}), $${params.length}) > 0`);
  }
  if (select.window.beforeId !== undefined) {
    params.push(select.window.beforeId);
    conditions.push(`id < $${params.length}`);
  }
  params.push(select.window.limit + 1);
  const columns = select.columns?.map(columnName).join(', ') ?? '*';
  const text = `SELECT ${columns} FROM ${select.from} WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`;
  return db.query<Row>(select.columns ? keptStatement(text) : text, params);
}
