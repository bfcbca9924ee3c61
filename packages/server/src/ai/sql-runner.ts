import type { Queryable } from '../db/connect.js';
import { systemClock } from '../platform/clock.js';
import { NoTurnInTime } from '../platform/concurrency-limit.js';
import { EmbeddedBudget, OverBudget } from './embedded-budget.js';
import { type PlanNode, longValuesCost } from './long-values-cost.js';
import type { ProjectReaders } from './project-reader.js';
import { withNumericValues } from './numeric-columns.js';
import { guardSql } from './sql-guard.js';

export type ResultRow = Record<string, unknown>;

export interface SqlLimits {
  /** Rows kept from one statement; one more is read to know whether the result was cut. */
  rowCap: number;
  statementTimeoutMs: number;
}

export const defaultSqlLimits: SqlLimits = { rowCap: 100, statementTimeoutMs: 5_000 };

export type SqlOutcome =
  | { ok: true; statement: string; columns: string[]; rows: ResultRow[]; truncated: boolean }
  | { ok: false; error: string };

/** A longer text cell is cut: results go to the model, the response and the history entry. */
export const maxCellChars = 10_000;

/** Values as JSON can carry them: dates as ISO strings, bytes as hex, big integers as numbers or text. */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > maxCellChars ? `${value.slice(0, maxCellChars)}…` : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

export const jsonRow = (row: ResultRow): ResultRow =>
  Object.fromEntries(Object.entries(row).map(([column, value]) => [column, jsonValue(value)]));


/**
 * What one statement may send back, as text: each row may take its share. The rows are checked
 * in the database, before they are sent, so a statement selecting a large column many times is
 * refused rather than read into this process's memory.
 */
export const maxResultBytes = 16 * 1024 * 1024;

const rowTooLarge = /"a result row of (\d+) bytes"/;

/**
 * The statement as a subquery, at most $1 rows of at most $2 bytes each. A larger row fails the
 * cast to int in the branch only it reaches (the row is part of the expression, so the planner
 * cannot evaluate it early): plain SQL that runs the same on PGlite and PostgreSQL.
 */
const capped = (statement: string) =>
  `SELECT * FROM (\n${statement}\n) AS result
   WHERE CASE WHEN octet_length(result::text) > $2 THEN ('a result row of ' || octet_length(result::text) || ' bytes')::int > 0 ELSE true END
   LIMIT $1`;

const cappedParams = (rowCap: number) => [rowCap + 1, Math.floor(maxResultBytes / (rowCap + 1))];

/**
 * Columns one statement may return. A row is checked as a whole (above), which builds it; a
 * dataset row is at most 1 MiB and joined texts at most 32 values, so this bounds what that costs.
 */
export const maxResultColumns = 100;

class TooManyColumns extends Error {}

/** The plan of the statement as it will run, capped as readCapped runs it. */
async function planOf(tx: Queryable, statement: string, rowCap: number): Promise<PlanNode> {
  const [explained] = await tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${capped(statement)}`, cappedParams(rowCap));
  return explained['QUERY PLAN'][0].Plan;
}

/**
 * Reads at most `rowCap` rows of an already-guarded statement. Wrapping it as a subquery with a
 * bound parameter makes the driver send one prepared statement, which PostgreSQL refuses to
 * split into several, whatever the text holds.
 */
export async function readCapped(tx: Queryable, statement: string, rowCap: number): Promise<{ rows: ResultRow[]; truncated: boolean }> {
  const rows = await tx.query<ResultRow>(capped(statement), cappedParams(rowCap));
  return { rows: rows.slice(0, rowCap).map(jsonRow), truncated: rows.length > rowCap };
}

/**
 * The model's SQL, end to end: parser check, then the project's read-only role; on PGlite also
 * `budget`, what the question has left (a fresh one, one statement's worth, when none is given).
 * Failures are outcomes, never throws.
 */
export async function runModelSql(
  readers: ProjectReaders,
  projectId: string,
  tables: ReadonlySet<string>,
  sql: string,
  limits: SqlLimits = defaultSqlLimits,
  budget: EmbeddedBudget = new EmbeddedBudget(systemClock),
): Promise<SqlOutcome> {
  const guarded = await guardSql(sql, tables);
  if (!guarded.ok) return { ok: false, error: `Refused: ${guarded.reason}` };
  try {
    const { rows, truncated } = await readers.read(projectId, limits.statementTimeoutMs, async (tx) => {
      const read = async () => {
        const result = await readCapped(tx, guarded.statement, limits.rowCap);
        return { ...result, rows: await withNumericValues(tx, guarded.statement, result.rows) };
      };
      const plan = await planOf(tx, guarded.statement, limits.rowCap);
      const columns = plan.Output?.length ?? 0;
      if (columns > maxResultColumns) {
        throw new TooManyColumns(`Refused: the statement returns ${columns} columns; at most ${maxResultColumns} are allowed, name the ones needed.`);
      }
      if (readers.interruptible) return read();
      const longValues = longValuesCost(plan, await readers.widthsOf(tx, projectId, plan));
      return budget.spend({ planner: plan['Total Cost'], longValues }, read);
    });
    return { ok: true, statement: guarded.statement, columns: Object.keys(rows[0] ?? {}), rows, truncated };
  } catch (error) {
    if (error instanceof OverBudget || error instanceof TooManyColumns || error instanceof NoTurnInTime) return { ok: false, error: error.message };
    const tooLarge = error instanceof Error ? rowTooLarge.exec(error.message) : null;
    if (tooLarge) {
      const allowed = cappedParams(limits.rowCap)[1];
      return { ok: false, error: `Refused: a result row is ${tooLarge[1]} bytes as text, over the ${allowed} allowed; select fewer or shorter columns (left(column, 200)).` };
    }
    return { ok: false, error: `The database refused the statement: ${error instanceof Error ? error.message : String(error)}` };
  }
}
