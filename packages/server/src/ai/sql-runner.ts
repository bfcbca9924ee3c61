import type { Queryable } from '../db/connect.js';
import { StatementStopped } from '../db/embedded-thread.js';
import { DatabaseUnavailable } from '../db/unavailable.js';
import { NoTurnInTime } from '../platform/concurrency-limit.js';
import type { ProjectReaders } from './project-reader.js';
import { withNumericValues } from './numeric-columns.js';
import { ProjectSqlPaused, stoppedSqlCooldownMs } from './stopped-sql-cooldown.js';
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

/**
 * The planner's estimate above which a statement is refused on the embedded database before it
 * runs: there, stopping one that runs past its limit restarts the database for every tenant, so
 * what the planner already knows to be that large is not started (a sort and aggregate over a
 * million rows is about 150 000). The time limit bounds what the estimate misses.
 */
export const embeddedStatementCost = 250_000;

class Refused extends Error {}

/** The part of a plan this runner reads: its estimate and the columns it returns. */
interface PlanNode {
  'Total Cost': number;
  Output?: string[];
}

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

/** PostgreSQL cancelled the statement at its statement_timeout. */
const cancelledForTime = (error: unknown) =>
  error instanceof DatabaseUnavailable && (error.cause as { code?: unknown } | undefined)?.code === '57014';

/**
 * What to tell the model or show in a widget when project SQL was refused or stopped for what it
 * asked (too large, too long, no turn, its organization paused); undefined for other failures.
 */
export function projectSqlFailure(error: unknown, statementTimeoutMs: number): string | undefined {
  if (error instanceof Refused || error instanceof NoTurnInTime || error instanceof ProjectSqlPaused) return error.message;
  if (error instanceof StatementStopped) {
    return `Stopped: the statement ran longer than ${error.limitMs} ms, the limit for project SQL, and the embedded database had to restart; this organization's project SQL is paused for ${stoppedSqlCooldownMs / 60_000} minutes.`;
  }
  if (cancelledForTime(error)) return `Stopped: the statement ran longer than ${statementTimeoutMs} ms, the limit for project SQL; filter or aggregate on fewer rows.`;
  return undefined;
}

/**
 * The model's SQL, end to end: parser check, then the project's read-only role, within its time
 * limit. Failures are outcomes, never throws, but for the database going away under other
 * statements (DatabaseUnavailable, answered 503).
 */
export async function runModelSql(
  readers: ProjectReaders,
  projectId: string,
  tables: ReadonlySet<string>,
  sql: string,
  limits: SqlLimits = defaultSqlLimits,
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
        throw new Refused(`Refused: the statement returns ${columns} columns; at most ${maxResultColumns} are allowed, name the ones needed.`);
      }
      const cost = plan['Total Cost'];
      if (readers.stopsRestartTheDatabase && cost > embeddedStatementCost) {
        throw new Refused(`Refused: this statement is estimated at ${Math.round(cost)} cost units, over the ${embeddedStatementCost} one statement may have on the embedded database; filter or aggregate before joining.`);
      }
      return read();
    });
    return { ok: true, statement: guarded.statement, columns: Object.keys(rows[0] ?? {}), rows, truncated };
  } catch (error) {
    const explained = projectSqlFailure(error, limits.statementTimeoutMs);
    if (explained) return { ok: false, error: explained };
    if (error instanceof DatabaseUnavailable) throw error;
    const tooLarge = error instanceof Error ? rowTooLarge.exec(error.message) : null;
    if (tooLarge) {
      const allowed = cappedParams(limits.rowCap)[1];
      return { ok: false, error: `Refused: a result row is ${tooLarge[1]} bytes as text, over the ${allowed} allowed; select fewer or shorter columns (left(column, 200)).` };
    }
    return { ok: false, error: `The database refused the statement: ${error instanceof Error ? error.message : String(error)}` };
  }
}
