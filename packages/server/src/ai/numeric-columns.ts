import type { Queryable } from '../db/connect.js';
import type { ResultRow } from './sql-runner.js';

/*
 * Both drivers hand `numeric` values over as text (they may hold more digits than a double), so
 * `SELECT sum(amount)` would answer "320" where a structured widget answers 320. The rule, the
 * same on PGlite and PostgreSQL, for the SQL of widgets and of chat answers: a `numeric` value
 * with at most 15 significant digits (exactly what a double keeps) becomes a JSON number; a longer
 * one, NaN and ±Infinity stay their exact text. Integers and floats are numbers already.
 */

/** The most significant digits a double carries for any decimal. */
const exactDigits = 15;

function significantDigits(text: string): number {
  return text.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

export function numericToJson(text: string): number | string {
  if (!/^[-+]?\d+(\.\d+)?$/.test(text) || significantDigits(text) > exactDigits) return text;
  return Number(text);
}

/**
 * The positions of the `numeric` columns of an already-guarded statement, asked of PostgreSQL
 * without running it: the statement sits on the never-taken side of a join, so only its result
 * types are worked out.
 */
async function numericColumns(tx: Queryable, statement: string, columnCount: number): Promise<number[]> {
  const names = Array.from({ length: columnCount }, (_, index) => `c${index}`);
  const [types] = await tx.query<Record<string, string>>(
    `SELECT ${names.map((name) => `pg_typeof(result.${name})::text AS ${name}`).join(', ')}
     FROM (SELECT 1) AS one LEFT JOIN (\n${statement}\n) AS result(${names.join(', ')}) ON false`,
  );
  return names.flatMap((name, index) => (types[name] === 'numeric' ? [index] : []));
}

/** The rows with their `numeric` values as the rule above says; rows without text values are left as they are. */
export async function withNumericValues(tx: Queryable, statement: string, rows: ResultRow[]): Promise<ResultRow[]> {
  if (!rows.some((row) => Object.values(row).some((value) => typeof value === 'string'))) return rows;
  const columnNames = Object.keys(rows[0]);
  const numeric = new Set((await numericColumns(tx, statement, columnNames.length)).map((index) => columnNames[index]));
  if (numeric.size === 0) return rows;
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([column, value]) => [column, numeric.has(column) && typeof value === 'string' ? numericToJson(value) : value])),
  );
}
