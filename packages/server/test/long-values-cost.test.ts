import { describe, expect, it } from 'vitest';
import { type PlanNode, type RelationWidths, costPerRegexByte, costPerTextByte, longValuesCost } from '../src/ai/long-values-cost.js';

/** Plans as EXPLAIN (VERBOSE, FORMAT JSON) prints them, cut to the fields the estimate reads. */
const node = (type: string, rows: number, fields: Partial<PlanNode> = {}, plans: PlanNode[] = []): PlanNode => ({
  'Node Type': type,
  'Plan Rows': rows,
  'Startup Cost': 0,
  'Total Cost': rows,
  ...fields,
  ...(plans.length > 0 ? { Plans: plans } : {}),
});
const scan = (alias: string, rows: number, fields: Partial<PlanNode> = {}) =>
  node('Seq Scan', rows, { 'Relation Name': 'notes', Schema: 'data_x', Alias: alias, ...fields });
const inner = (plan: PlanNode): PlanNode => ({ ...plan, 'Parent Relationship': 'Inner' });

/** A table of 1 000 notes: a 100 KB body, a 20-byte title, a 32-byte code. */
const notes: RelationWidths = {
  rows: 1_000,
  columns: new Map([
    ['body', { bytes: 100_064, numeric: false }],
    ['title', { bytes: 20, numeric: false }],
    ['code', { bytes: 32, numeric: false }],
  ]),
};
const widthsOf = (plan: PlanNode) => (plan['Relation Name'] === 'notes' ? notes : undefined);

describe('the estimate of what reading long values costs', () => {
  it('charges a function over a long column once per row scanned, and nothing for short columns or a plain read', () => {
    expect(longValuesCost(scan('n', 10, { Filter: "(lower(n.body) = 'x'::text)", Output: ['n.title'] }), widthsOf)).toBeCloseTo(1_000 * 100_000 * costPerTextByte);
    expect(longValuesCost(scan('n', 1_000, { Filter: "(n.title = 'x'::text)", Output: ['n.body'] }), widthsOf)).toBe(0);
  });

  it('charges a nested loop once per pair, and its inner side once per outer row unless it replays what it kept, an index scan for the rows it finds', () => {
    const pairs = node('Nested Loop', 1_000_000, { 'Join Filter': '(md5(a.body) > b.title)' }, [scan('a', 1_000), inner(node('Materialize', 1_000, {}, [scan('b', 1_000)]))]);
    expect(longValuesCost(pairs, widthsOf)).toBeCloseTo(1_000_000 * 100_000 * costPerTextByte);
    const rescanned = node('Nested Loop', 1_000_000, {}, [scan('a', 1_000), inner(scan('b', 1_000, { Filter: '(upper(b.body) > a.title)' }))]);
    expect(longValuesCost(rescanned, widthsOf)).toBeCloseTo(1_000 * 1_000 * 100_000 * costPerTextByte);
    const replayed = node('Nested Loop', 1_000_000, {}, [scan('a', 1_000), inner(node('Materialize', 1_000, {}, [scan('b', 1_000, { Filter: "(upper(b.body) > 'x'::text)" })]))]);
    expect(longValuesCost(replayed, widthsOf)).toBeCloseTo(1_000 * 100_000 * costPerTextByte);
    const looked = node('Nested Loop', 1_000, {}, [
      scan('a', 1_000),
      inner(node('Index Scan', 1, { 'Relation Name': 'notes', Schema: 'data_x', Alias: 'b', 'Index Cond': '(b.title = a.title)', Filter: '(upper(b.body) > a.title)' })),
    ]);
    expect(longValuesCost(looked, widthsOf)).toBeCloseTo(1_000 * 1 * 100_000 * costPerTextByte);
  });

  it('charges only the share of its input a LIMIT runs', () => {
    const limited = node('Limit', 10, { 'Startup Cost': 0, 'Total Cost': 10 }, [scan('n', 1_000, { 'Total Cost': 1_000, Output: ['lower(n.body)'] })]);
    expect(longValuesCost(limited, widthsOf)).toBeCloseTo(0.01 * 1_000 * 100_000 * costPerTextByte);
  });

  it('finds a column renamed in a CTE or a subquery through the tables beneath it', () => {
    const cte: PlanNode = { ...scan('n', 1_000, { Output: ['n.body'] }), 'Parent Relationship': 'InitPlan', 'Subplan Name': 'CTE Copies' };
    const renamed = node('Aggregate', 1, { Output: ["count(*) FILTER (WHERE (upper(c.b) = 'x'::text))"] }, [node('CTE Scan', 1_000, { Alias: 'c', 'CTE Name': 'Copies' }), cte]);
    expect(longValuesCost(renamed, widthsOf)).toBeCloseTo(1_000 * 100_000 * costPerTextByte);
  });

  it('charges a regular expression from its first byte, LIKE only beyond a plain value', () => {
    const wide: RelationWidths = { rows: 1_000_000, columns: new Map([['code', { bytes: 32, numeric: false }]]) };
    const codes = (filter: string) => longValuesCost(scan('n', 1_000_000, { Filter: filter }), () => wide);
    expect(codes("(n.code ~ '(a|b)*a(a|b){12}$'::text)")).toBeCloseTo(1_000_000 * 32 * costPerRegexByte);
    expect(codes("(n.code !~* 'x'::text)")).toBeCloseTo(1_000_000 * 32 * costPerRegexByte);
    expect(codes("(n.code ~~ '%a%'::text)")).toBe(0);
    expect(codes("(n.code !~~* '%a%'::text)")).toBe(0);
  });

  it('charges a long literal read at every row, but not a list of values', () => {
    const format = 'FM9999 '.repeat(1_000);
    expect(longValuesCost(scan('n', 1_000, { Filter: `(to_char(n.code, '${format}'::text) <> ''::text)` }), widthsOf)).toBeCloseTo(1_000 * (format.length - 64) * costPerTextByte);
    const list = `{${Array.from({ length: 2_000 }, (_, index) => `code${index}`).join(',')}}`;
    expect(longValuesCost(scan('n', 1_000, { Filter: `(n.code = ANY ('${list}'::text[]))` }), widthsOf)).toBe(0);
  });
});
