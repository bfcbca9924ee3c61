import { describe, expect, it } from 'vitest';
import { guardSql } from '../src/ai/sql-guard.js';

const tables = new Set(['alerts', 'sales']);

describe('the SQL guard', () => {
  it.each([
    `SELECT area, count(*) FROM alerts WHERE severity = 'critical' GROUP BY area ORDER BY 2 DESC LIMIT 1`,
    `WITH monthly AS (SELECT date_trunc('month', order_date) AS m, sum(amount) AS total FROM sales GROUP BY 1)
     SELECT m, total, lag(total) OVER (ORDER BY m) AS previous FROM monthly`,
    `(WITH y AS (SELECT 1 AS n) SELECT n FROM y) UNION ALL SELECT 2`,
    `SELECT s.*, (SELECT count(*) FROM alerts) AS alerts FROM sales s WHERE EXISTS (SELECT 1 FROM alerts a WHERE a.area = 'x')`,
    `SELECT extract(year FROM created_at), created_at AT TIME ZONE 'UTC', coalesce(area, '-'), nullif(area, ''),
            greatest(1, 2), CASE WHEN area IS NULL THEN 0 ELSE 1 END, title ILIKE '%card%', severity IN ('high', 'low'),
            amount::numeric(10, 2), current_date - 7, now() - interval '7 days'
     FROM alerts, sales`,
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) FROM sales`,
    `select 'Zürich' as city -- a comment with ü`,
    `SELECT date(created_at), grouping(area), count(*), unnest(array[1, 2]) FROM alerts GROUP BY ROLLUP (area, date(created_at))`,
    `SELECT id::uuid, DATE '2026-01-01', (amount::float / 3)::double precision, amount::decimal(10, 2), ARRAY[area]::text[] FROM sales`,
  ])('accepts %s', async (sql) => {
    const result = await guardSql(sql, tables);
    expect(result).toMatchObject({ ok: true });
  });

  it('returns the statement alone, without a trailing semicolon', async () => {
    expect(await guardSql('  SELECT 1 FROM sales;  ', tables)).toEqual({ ok: true, statement: 'SELECT 1 FROM sales' });
  });

  it.each([
    ['a CTE that hides a catalog table behind a later CTE of the same name', 'WITH t AS (SELECT * FROM pg_settings), pg_settings AS (SELECT 1) SELECT * FROM t', /no table "pg_settings"/],
    ['a data-modifying CTE', 'WITH gone AS (DELETE FROM sales RETURNING *) SELECT * FROM gone', /DeleteStmt is not allowed/],
    ['WITH RECURSIVE', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r', /RECURSIVE/],
    ['a bind parameter', 'SELECT $1', /ParamRef/],
    ['a set-returning function in FROM', 'SELECT * FROM generate_series(1, 1000000000)', /RangeFunction/],
    ['TABLESAMPLE', 'SELECT * FROM sales TABLESAMPLE SYSTEM (10)', /RangeTableSample/],
    ['a schema-qualified column', 'SELECT pg_catalog.pg_class.relname FROM sales', /Schema-qualified column/],
    ['a qualified operator outside pg_catalog', 'SELECT 1 OPERATOR(public.+) 1 FROM sales', /schema-qualified/],
    ['current_user', 'SELECT current_user', /Session information/],
    ['an unbounded allocation', "SELECT repeat('x', 1000000000)", /repeat\(\) is not allowed/],
    ['a width that allocates 500 MB', "SELECT format('%500000000s', 'x') FROM sales", /format\(\) is not allowed/],
    ['a syntax error', 'SELEC 1', /Syntax error/],
    ['a statement too long', `SELECT ${'1 + '.repeat(7_000)}1`, /longer than/],
  ])('refuses %s', async (_name, sql, reason) => {
    const result = await guardSql(sql, tables);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });
});
