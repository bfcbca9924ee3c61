import { describe, expect, it } from 'vitest';
import { type PlanNode, type RelationWidths, costPerRegexByte, costPerSearchPair, costPerTextByte, longValuesCost } from '../src/ai/long-values-cost.js';

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
    ['body', { bytes: 100_064, longest: 100_064, numeric: false }],
    ['title', { bytes: 20, longest: 20, numeric: false }],
    ['code', { bytes: 32, longest: 32, numeric: false }],
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

  it('charges a regular expression from its first byte, LIKE by the pairs of bytes it compares', () => {
    const wide: RelationWidths = { rows: 1_000_000, columns: new Map([['code', { bytes: 32, longest: 32, numeric: false }]]) };
    const codes = (filter: string) => longValuesCost(scan('n', 1_000_000, { Filter: filter }), () => wide);
    expect(codes("(n.code ~ '(a|b)*a(a|b){12}$'::text)")).toBeCloseTo(1_000_000 * 32 * costPerRegexByte);
    expect(codes("(n.code !~* 'x'::text)")).toBeCloseTo(1_000_000 * 32 * costPerRegexByte);
    expect(codes("(n.code ~~ '%a%'::text)")).toBeCloseTo(1_000_000 * 32 * 3 * costPerSearchPair);
    expect(codes("(n.code !~~* '%a%'::text)")).toBeCloseTo(1_000_000 * 32 * 3 * costPerSearchPair);
  });

  it('charges a long literal read at every row, but not a list of values', () => {
    const format = 'FM9999 '.repeat(1_000);
    expect(longValuesCost(scan('n', 1_000, { Filter: `(to_char(n.code, '${format}'::text) <> ''::text)` }), widthsOf)).toBeCloseTo(1_000 * (format.length - 64) * costPerTextByte);
    const list = `{${Array.from({ length: 2_000 }, (_, index) => `code${index}`).join(',')}}`;
    expect(longValuesCost(scan('n', 1_000, { Filter: `(n.code = ANY ('${list}'::text[]))` }), widthsOf)).toBe(0);
  });

  it('charges a pattern search the bytes of its text times those of its pattern, whatever the function or operator', () => {
    const scanned = (filter: string) => longValuesCost(scan('n', 1_000, { Filter: filter }), widthsOf);
    const perRow = (pairs: number) => 1_000 * (pairs * costPerSearchPair + (100_064 - 64) * costPerTextByte);
    expect(scanned('(strpos(n.body, n.title) > 0)')).toBeCloseTo(perRow(100_064 * 20));
    expect(scanned('(POSITION((n.title) IN (n.body)) > 0)')).toBeCloseTo(perRow(100_064 * 20));
    expect(scanned("(split_part(n.body, n.code, 2) = ''::text)")).toBeCloseTo(perRow(100_064 * 32));
    expect(scanned("(n.body ~~* (('%'::text || n.title) || '%'::text))")).toBeCloseTo(perRow(100_064 * 22));
    expect(scanned("(btrim(n.body, 'xy, z'::text) = ''::text)")).toBeCloseTo(perRow(100_064 * 5));
    // Parentheses and commas inside a literal are not the call's own.
    expect(scanned("(strpos(n.body, '(,)'::text) > 0)")).toBeCloseTo(perRow(100_064 * 3));
    // A regular expression's pattern is charged by the pair beyond what its per-byte charge stands for.
    const pattern = 'a'.repeat(1_000);
    expect(scanned(`(n.title ~ '${pattern}'::text)`)).toBeCloseTo(
      1_000 * (20 * costPerRegexByte + (1_000 - 64) * costPerTextByte + 20 * (1_000 - costPerRegexByte / costPerSearchPair) * costPerSearchPair),
    );
  });

  it("reads a value above its own scan as one of the longest the scan's filter may have kept", () => {
    const skewed: RelationWidths = {
      rows: 1_000,
      columns: new Map([
        ['body', { bytes: 1_000, longest: 150_000, numeric: false }],
        ['title', { bytes: 10, longest: 10, numeric: false }],
      ]),
    };
    const picked = (rows: number) =>
      longValuesCost(
        node('Nested Loop', rows * rows, { Output: ['strpos(a.body, b.body)'] }, [
          scan('a', rows, { Filter: "(a.title = 'x'::text)" }),
          inner(scan('b', rows, { Filter: "(b.title = 'y'::text)" })),
        ]),
        () => skewed,
      );
    // One row each side: it may be the longest.
    expect(picked(1)).toBeCloseTo(150_000 * 150_000 * costPerSearchPair + 2 * (150_000 - 64) * costPerTextByte);
    // Every row: no more than the average, since all of them are read.
    expect(picked(1_000)).toBeCloseTo(1_000_000 * (1_000 * 1_000 * costPerSearchPair + 2 * (1_000 - 64) * costPerTextByte));
    // At its own sequential scan a filter reads every row, so the average; an index may find the longest.
    expect(longValuesCost(scan('a', 1, { Filter: "(lower(a.body) = 'x'::text)" }), () => skewed)).toBeCloseTo(1_000 * (1_000 - 64) * costPerTextByte);
    const found = node('Index Scan', 1, { 'Relation Name': 'notes', Schema: 'data_x', Alias: 'a', 'Index Cond': '(a._row_id = 5)', Filter: "(lower(a.body) = 'x'::text)" });
    expect(longValuesCost(found, () => skewed)).toBeCloseTo((150_000 - 64) * costPerTextByte);
  });
});
