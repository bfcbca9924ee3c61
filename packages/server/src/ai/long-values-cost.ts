import { patternSearchPairs, quotedLiteral } from './pattern-search-pairs.js';

/**
 * What the planner leaves out of a statement's cost on the embedded database: it charges every
 * function call the same whatever the length of the values it reads, so a regular expression over
 * every pair of 150 KB cells is estimated like one over short names (a few hundred units; it ran
 * 4 s), and a multiplication of 16 000-digit numbers like one of prices. This walks the plan as
 * EXPLAIN (VERBOSE) prints it and charges, at each node, what its expressions read times how
 * often the node evaluates them, in the planner's own units: the bytes of long values, the pairs
 * of bytes a pattern search compares, and the square of a long numeric's digits.
 */

/** One node of EXPLAIN (VERBOSE, FORMAT JSON). */
export interface PlanNode {
  'Node Type': string;
  'Plan Rows': number;
  'Startup Cost': number;
  'Total Cost': number;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Schema?: string;
  Alias?: string;
  'CTE Name'?: string;
  Strategy?: string;
  Output?: string[];
  Plans?: PlanNode[];
  [field: string]: unknown;
}

/** A column's average and longest bytes (as stored before compression; a numeric's digits), and whether it is a numeric. */
export interface ColumnWidth {
  bytes: number;
  longest: number;
  numeric: boolean;
}

/** A relation's rows and the widths of its columns. */
export interface RelationWidths {
  rows: number;
  columns: ReadonlyMap<string, ColumnWidth>;
}

/**
 * Planner units per byte of text a node's expressions read. Measured on PGlite (2 cores): about
 * 20 µs per unit of a plain scan and aggregate, and 2–25 ns per byte for md5, plain regular
 * expressions, lower() over long cells, to_char() with a long format and a cast to jsonb.
 */
export const costPerTextByte = 0.001;

/**
 * Planner units per byte a regular expression reads, from the first byte: 5 ns a byte for a plain
 * pattern, up to 200 for one whose automaton has many states (`(a|b)*a(a|b){12}$`), measured.
 */
export const costPerRegexByte = 0.005;

/** A regular expression match as EXPLAIN prints it: `~`, `~*`, `!~`, `!~*` (SIMILAR TO included), not LIKE's `~~`. */
const regexMatch = /(?<![~!])!?~\*?(?!~)|\bregexp_(?:like|count)\(/;

/**
 * Planner units per pair of digits a numeric multiplication or division works through (its cost
 * is the product of its operands' lengths): two 16 000-digit numbers multiplied took 3 ms.
 */
export const costPerDigitPair = 6e-7;

/**
 * Planner units per pair of bytes a pattern search compares (pattern-search-pairs.ts): 0.6 ns for
 * strpos, 1.3 for LIKE, 2.9 for a regular expression, measured with patterns that match but for
 * their last byte.
 */
export const costPerSearchPair = 1.5e-4;

/** The bytes of a regular expression's pattern its per-byte charge (costPerRegexByte) already stands for. */
const regexPatternBytesCharged = costPerRegexByte / costPerSearchPair;

/** Bytes (or digits) per value the planner's per-call charge already stands for: shorter values cost nothing extra. */
const plainValueBytes = 64;

/** Where expressions are, besides Output. */
const expressionFields = [
  'Filter', 'Join Filter', 'Hash Cond', 'Merge Cond', 'Index Cond', 'Recheck Cond', 'One-Time Filter', 'Sort Key',
  'Presorted Key', 'Group Key', 'Grouping Sets', 'Hash Key', 'Cache Key', 'Run Condition', 'Order By', 'Function Call',
];

/** Nodes that pass their input's rows on without computing a projection: their Output repeats what a child computed. */
const passThrough = new Set(['Sort', 'Incremental Sort', 'Hash', 'Materialize', 'Limit', 'Unique', 'Memoize', 'Append', 'Merge Append', 'Gather', 'Gather Merge', 'LockRows']);

/** Nodes that read all their input before returning a first row: a LIMIT above does not shorten what runs below. */
const readsAllInput = (node: PlanNode) =>
  ['Sort', 'Incremental Sort', 'Hash', 'SetOp'].includes(node['Node Type']) || (node['Node Type'] === 'Aggregate' && node.Strategy !== 'Sorted');

/** Nodes that keep the rows they read: run again for the next outer row, they replay them instead of reading their input again. */
const keepsRows = new Set(['Materialize', 'Hash', 'Sort']);

const identifier = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
/** `alias.column`, `alias."Column"` or `alias.*`, not followed by `(` (a schema-qualified function). */
const reference = new RegExp(String.raw`(${identifier})\.(${identifier}|\*)(?!\s*\()`, 'g');
const literal = new RegExp(quotedLiteral, 'g');
/**
 * A literal that is read at every evaluation, as a long one (a format, a pattern) is; not a list
 * of values (`x IN (…)` is `x = ANY ('{…}'::text[])`), which PostgreSQL hashes once.
 */
const literalUse = new RegExp(String.raw`${quotedLiteral}(?!::[\w ."]+\[\])`, 'g');
const bareReference = new RegExp(String.raw`^\(*${identifier}\.${identifier}\)*$`);

const unquote = (name: string) => (name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name);

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) strings(item, into);
  return into;
}

/** The plan's nodes, depth first. */
export function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodesOf(child);
}

/**
 * The bytes a value of a reference reads, at the node whose expressions read it. A base table's
 * alias resolves to its column; any other alias (a subquery, a CTE, a view) to the widest column
 * of that name among the tables read beneath it, or the widest of them all when the subquery
 * renamed it.
 *
 * At its own sequential scan a reference reads every row of the table, so a value is the
 * column's average. Above its scan, or at an index scan, the rows are those the scan kept, and a
 * filter or an index can pick out the few longest values: a value there is the average of the
 * longest rows the scan may have kept, no more than the column's longest, and no more than all its
 * bytes over the rows kept.
 */
class ReferenceWidths {
  private readonly byAlias = new Map<string, { scan: PlanNode; widths: RelationWidths }>();
  private readonly beneath = new Map<string, { node: PlanNode; relations: RelationWidths[] }>();
  private readonly everything: RelationWidths[];

  constructor(root: PlanNode, widthsOf: (node: PlanNode) => RelationWidths | undefined) {
    const ctes = new Map<string, PlanNode>();
    for (const node of nodesOf(root)) {
      const name = node['Subplan Name']?.match(/^CTE (.+)$/)?.[1];
      if (name) ctes.set(name, node);
    }
    const relationsUnder = (node: PlanNode, seen = new Set<PlanNode>()): RelationWidths[] => {
      if (seen.has(node)) return [];
      seen.add(node);
      const found: RelationWidths[] = [];
      for (const each of nodesOf(node)) {
        const widths = widthsOf(each);
        if (widths) found.push(widths);
        const cte = each['CTE Name'] === undefined ? undefined : ctes.get(each['CTE Name']);
        if (cte) found.push(...relationsUnder(cte, seen));
      }
      return found;
    };
    for (const node of nodesOf(root)) {
      if (node.Alias === undefined) continue;
      const widths = widthsOf(node);
      if (widths) this.byAlias.set(node.Alias, { scan: node, widths });
      else this.beneath.set(node.Alias, { node, relations: relationsUnder(node) });
    }
    this.everything = relationsUnder(root);
  }

  /** The bytes of one value of the reference read at `at`, and its digits when it is a numeric. */
  of(alias: string, column: string, at: PlanNode): { bytes: number; digits: number } {
    const table = this.byAlias.get(alias);
    const under = this.beneath.get(alias);
    const candidates = table ? [table.widths] : (under?.relations ?? this.everything);
    const readsEveryRow = at === table?.scan && at['Node Type'] === 'Seq Scan';
    const kept = table ? (readsEveryRow ? table.widths.rows : table.scan['Plan Rows']) : (under?.node['Plan Rows'] ?? 1);
    const valueOf = (relation: RelationWidths, width: ColumnWidth) => ({
      bytes: Math.max(width.bytes, Math.min(width.longest, (width.bytes * relation.rows) / Math.max(1, kept))),
      numeric: width.numeric,
    });
    const named = candidates.flatMap((relation) => {
      const width = relation.columns.get(column);
      return width ? [valueOf(relation, width)] : [];
    });
    const values =
      column === '*'
        ? candidates.map((relation) => ({ bytes: sum([...relation.columns.values()].map((width) => valueOf(relation, width).bytes)), numeric: false }))
        : named.length > 0 || table
          ? named
          : candidates.flatMap((relation) => [...relation.columns.values()].map((width) => valueOf(relation, width)));
    return {
      bytes: Math.max(0, ...values.map((value) => value.bytes)),
      digits: Math.max(0, ...values.filter((value) => value.numeric).map((value) => value.bytes)),
    };
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** A reference read as a numeric (`(t.amount)::numeric`): a text of digits is about one digit per byte. */
const castToNumeric = /^\)?::numeric/;

/** What reading the references and literals in `texts` at `node` costs beyond what the planner charged, once each. */
function extraCost(texts: string[], widths: ReferenceWidths, node: PlanNode): number {
  const referenceBytes = (alias: string, column: string) => widths.of(unquote(alias), column === '*' ? '*' : unquote(column), node);
  /** An operand's bytes: its references' and its literals' (masked, so their length is their bytes). */
  const operandBytes = (operand: string) =>
    sum([...operand.matchAll(literal)].map(([, content]) => content.length)) +
    sum([...operand.replace(literal, "''").matchAll(reference)].map(([, alias, column]) => referenceBytes(alias, column).bytes));
  const searchPairs = (searched: string, pattern: string, regex: boolean) =>
    operandBytes(searched) * Math.max(0, operandBytes(pattern) - (regex ? regexPatternBytesCharged : 0));
  let cost = 0;
  for (const text of texts) {
    cost += patternSearchPairs(text, searchPairs) * costPerSearchPair;
    for (const [, value] of text.matchAll(literalUse)) cost += Math.max(0, Buffer.byteLength(value) - plainValueBytes) * costPerTextByte;
    const plain = text.replace(literal, "''");
    const byRegex = regexMatch.test(plain);
    for (const match of plain.matchAll(reference)) {
      const [whole, alias, column] = match;
      const { bytes, digits } = referenceBytes(alias, column);
      const numericDigits = Math.max(digits, castToNumeric.test(plain.slice(match.index + whole.length)) ? bytes : 0);
      const read = byRegex ? bytes * costPerRegexByte : Math.max(0, bytes - plainValueBytes) * costPerTextByte;
      cost += read + Math.max(0, numericDigits - plainValueBytes) ** 2 * costPerDigitPair;
    }
  }
  return cost;
}

/** The fraction of its child a Limit runs, as the planner's own costs have it. */
function limitFraction(limit: PlanNode, child: PlanNode): number {
  const span = child['Total Cost'] - child['Startup Cost'];
  if (span <= 0) return 1;
  return Math.min(1, Math.max(0, (limit['Total Cost'] - child['Startup Cost']) / span));
}

/**
 * The extra cost, in planner units, of the long values and literals the plan's expressions read.
 * `widthsOf` gives the widths of the table a scan node reads (undefined for other nodes).
 */
export function longValuesCost(root: PlanNode, widthsOf: (node: PlanNode) => RelationWidths | undefined): number {
  const widths = new ReferenceWidths(root, widthsOf);
  let cost = 0;
  /** `loops`: how often the node runs; `once`: how often it would run if nothing above rescanned it. */
  const visit = (node: PlanNode, loops: number, fraction: number, once: number): void => {
    const type = node['Node Type'];
    const children = node.Plans ?? [];
    const inputs = children.filter((child) => child['Parent Relationship'] !== 'InitPlan' && child['Parent Relationship'] !== 'SubPlan');
    const rows = node['Plan Rows'];
    // A sequential scan's filter reads every row of its table; an index scan's, the rows the index finds.
    const evaluations =
      type === 'Nested Loop'
        ? inputs[0]['Plan Rows'] * inputs[1]['Plan Rows']
        : Math.max(rows, type === 'Seq Scan' ? (widthsOf(node)?.rows ?? 0) : 0, sum(inputs.map((child) => child['Plan Rows'])));
    const texts = strings(expressionFields.map((field) => node[field]));
    if (!passThrough.has(type)) texts.push(...(node.Output ?? []).filter((output) => !bareReference.test(output)));
    cost += loops * fraction * evaluations * extraCost(texts, widths, node);

    const below = readsAllInput(node) ? 1 : fraction;
    const inputLoops = keepsRows.has(type) ? once : loops;
    for (const child of children) {
      const relationship = child['Parent Relationship'];
      if (relationship === 'InitPlan') visit(child, 1, 1, 1);
      else if (relationship === 'SubPlan') visit(child, loops * fraction * rows, 1, loops * fraction * rows);
      else if (type === 'Nested Loop' && child === inputs[1]) visit(child, inputLoops * below * inputs[0]['Plan Rows'], 1, inputLoops);
      else if (type === 'Limit') visit(child, inputLoops, below * limitFraction(node, child), once);
      else visit(child, inputLoops, below, once);
    }
  };
  visit(root, 1, 1, 1);
  return cost;
}
