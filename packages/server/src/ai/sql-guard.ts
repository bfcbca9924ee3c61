import { loadModule, parse } from 'libpg-query';
import { allowedFunctions, allowedNodes, allowedTypes, allowedValueFunctions, floatOnlyFunctions, floatTypes, joiningFunctions } from './sql-allow-list.js';

export const maxSqlLength = 20_000;

/**
 * Joins of texts (`||`, each argument of concat, concat_ws, overlay) one statement may make, all
 * in one SELECT: a joined value is then at most this many stored values and literals long. Joins
 * in two SELECTs, one reading the other, would multiply (each level doubling what the one below made).
 */
export const maxTextJoins = 32;

/**
 * Multiplications one statement may make: each adds its factors' digits, so a long chain of them
 * over numeric columns makes numbers whose next multiplication costs the square of their length.
 */
export const maxMultiplications = 64;

export type GuardResult = { ok: true; statement: string } | { ok: false; reason: string };

class Refusal extends Error {}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `sval` of each String node in a name list such as funcname or TypeName.names. */
function nameParts(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => (isNode(item) && isNode(item.String) ? String(item.String.sval ?? '') : ''));
}

function withoutCatalogSchema(parts: string[], what: string): string {
  if (parts.length === 2 && parts[0] === 'pg_catalog') return parts[1];
  if (parts.length !== 1) throw new Refusal(`${what} ${parts.join('.')} is schema-qualified; use plain names.`);
  return parts[0];
}

/**
 * Walks the whole parse tree and refuses anything outside the allow-lists. `scope` holds the CTE
 * names visible at this point, which PostgreSQL resolves before any table; everything else must be
 * one of the project's tables, unqualified.
 */
class TreeCheck {
  /** Every name a FROM item, alias or CTE has in the statement: a bare column reference to one would be a whole row. */
  private readonly rowNames: ReadonlySet<string>;
  /** `t.*` written as a whole select-list item, the one place it only lists columns. */
  private readonly listedStars = new WeakSet<object>();
  /** The SELECTs that join texts, and how many joins they make. */
  private readonly joiningSelects = new Set<object>();
  private textJoins = 0;
  private multiplications = 0;
  private readonly selects: object[] = [];

  constructor(
    private readonly tables: ReadonlySet<string>,
    private readonly root: unknown,
  ) {
    this.rowNames = namesOfRows(root);
  }

  /** Checks the whole statement. */
  check(): void {
    this.visit(this.root, new Set());
    if (this.joiningSelects.size > 1) {
      throw new Refusal('Texts may be joined (||, concat, concat_ws, overlay) in only one SELECT of the statement; join them in the outermost one.');
    }
    if (this.textJoins > maxTextJoins) {
      throw new Refusal(`The statement joins texts ${this.textJoins} times (||, concat arguments); at most ${maxTextJoins} are allowed.`);
    }
    if (this.multiplications > maxMultiplications) {
      throw new Refusal(`The statement multiplies ${this.multiplications} times; at most ${maxMultiplications} are allowed.`);
    }
  }

  visit(value: unknown, scope: ReadonlySet<string>): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item, scope);
      return;
    }
    if (!isNode(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (/^[A-Z]/.test(key)) this.node(key, child, scope);
      else this.field(key, child, scope);
    }
  }

  private field(key: string, child: unknown, scope: ReadonlySet<string>): void {
    if (key === 'intoClause') throw new Refusal('SELECT … INTO creates a table; only reading is allowed.');
    if (key === 'lockingClause') throw new Refusal('FOR UPDATE / FOR SHARE lock rows; only reading is allowed.');
    if (key === 'typeName') this.type(child);
    this.visit(child, scope);
  }

  private node(kind: string, body: unknown, scope: ReadonlySet<string>): void {
    if (!allowedNodes.has(kind)) throw new Refusal(`${kind} is not allowed in a read-only question.`);
    if (!isNode(body)) return;
    switch (kind) {
      case 'SelectStmt':
        return this.select(body, scope);
      case 'RangeVar':
        return this.table(body, scope);
      case 'FuncCall':
        this.func(body);
        break;
      case 'A_ArrayExpr':
        if (!isConstant(body)) throw new Refusal('ARRAY[…] may hold only constants.');
        break;
      case 'SubLink':
        if (body.subLinkType === 'ARRAY_SUBLINK') throw new Refusal('ARRAY(SELECT …) is not allowed; return the rows instead.');
        break;
      case 'SQLValueFunction':
        if (!allowedValueFunctions.has(String(body.op))) throw new Refusal('Session information functions are not allowed.');
        break;
      case 'A_Expr':
        this.operator(body);
        break;
      case 'ColumnRef':
        this.column(body);
        break;
    }
    this.visit(body, scope);
  }

  /** A non-recursive WITH: each CTE sees only the ones before it, the body sees them all. */
  private select(body: Node, outer: ReadonlySet<string>): void {
    this.selects.push(body);
    try {
      this.selectBody(body, outer);
    } finally {
      this.selects.pop();
    }
  }

  private selectBody(body: Node, outer: ReadonlySet<string>): void {
    const { withClause, larg, rarg, ...rest } = body;
    for (const item of Array.isArray(body.targetList) ? body.targetList : []) {
      const column = isNode(item) && isNode(item.ResTarget) && isNode(item.ResTarget.val) ? item.ResTarget.val.ColumnRef : undefined;
      if (isNode(column)) this.listedStars.add(column);
    }
    // The arms of a UNION are SelectStmt bodies without the node wrapper; each may have its own WITH.
    if (isNode(larg)) this.select(larg, outer);
    if (isNode(rarg)) this.select(rarg, outer);
    let scope = outer;
    if (isNode(withClause)) {
      if (withClause.recursive) throw new Refusal('WITH RECURSIVE is not allowed.');
      for (const item of Array.isArray(withClause.ctes) ? withClause.ctes : []) {
        const cte = isNode(item) && isNode(item.CommonTableExpr) ? item.CommonTableExpr : undefined;
        if (!cte) throw new Refusal('Unexpected WITH clause.');
        const name = String(cte.ctename ?? '');
        if (name.startsWith('pg_')) throw new Refusal(`A CTE may not be named ${name}.`);
        if (cte.ctematerialized !== undefined && cte.ctematerialized !== 'CTEMaterializeDefault') {
          throw new Refusal('MATERIALIZED hints are not allowed.');
        }
        this.visit(cte.ctequery, scope);
        this.visit(cte.aliascolnames, scope);
        scope = new Set([...scope, name]);
      }
    }
    this.visit(rest, scope);
  }

  private table(body: Node, scope: ReadonlySet<string>): void {
    const name = String(body.relname ?? '');
    if (body.schemaname !== undefined || body.catalogname !== undefined) {
      throw new Refusal(`${[body.catalogname, body.schemaname, name].filter(Boolean).join('.')} is outside this project; use the table names listed, unqualified.`);
    }
    if (scope.has(name)) return this.visit(body.alias, scope);
    if (!this.tables.has(name)) {
      throw new Refusal(`There is no table "${name}" in this project. Tables: ${[...this.tables].join(', ') || 'none'}.`);
    }
    this.visit(body.alias, scope);
  }

  private func(body: Node): void {
    const name = withoutCatalogSchema(nameParts(body.funcname), 'function').toLowerCase();
    if (!allowedFunctions.has(name)) throw new Refusal(`The function ${name}() is not allowed.`);
    if (joiningFunctions.has(name)) this.joins(Array.isArray(body.args) ? body.args.length : 0);
    if (floatOnlyFunctions.has(name)) inDoublePrecision(`${name}()`, Array.isArray(body.args) ? body.args : []);
  }

  private operator(body: Node): void {
    const name = withoutCatalogSchema(nameParts(body.name), 'operator');
    if (name === '||') this.joins(1);
    if (name === '*') this.multiplications += 1;
    if (name === '^') inDoublePrecision('The ^ operator', [body.lexpr, body.rexpr]);
  }

  private joins(count: number): void {
    this.textJoins += count;
    this.joiningSelects.add(this.selects[this.selects.length - 1]);
  }

  /** Whole rows are refused: their text form escapes quotes, so a row of a row of a row doubles each time. */
  private column(body: Node): void {
    const fields = Array.isArray(body.fields) ? body.fields : [];
    if (fields.length > 2) throw new Refusal('Schema-qualified column references are not allowed.');
    const star = fields.some((field) => isNode(field) && 'A_Star' in field);
    if (star && !this.listedStars.has(body)) throw new Refusal('t.* may only be a whole item of a select list; name the columns.');
    const [name] = nameParts(fields);
    if (fields.length === 1 && this.rowNames.has(name)) {
      throw new Refusal(
        `"${name}" is also the name of a table or alias here, so it could mean the whole row, which is not allowed; ` +
          `qualify the column (${name}.${name}, or alias.${name}).`,
      );
    }
  }

  private type(typeName: unknown): void {
    if (!isNode(typeName)) return;
    const name = typeNameOf(typeName);
    if (!allowedTypes.has(name)) throw new Refusal(`Casting to ${name} is not allowed.`);
    const [first] = Array.isArray(typeName.typmods) ? typeName.typmods : [];
    const width = isNode(first) && isNode(first.A_Const) && isNode(first.A_Const.ival) ? Number(first.A_Const.ival.ival ?? 0) : 0;
    if (name === 'bpchar' && width > maxCharWidth) throw new Refusal(`char(${width}) pads every value to ${width} characters; cast to text instead.`);
  }
}

/** A cast's type, as the allow-lists name it. */
const typeNameOf = (typeName: Node): string => withoutCatalogSchema(nameParts(typeName.names), 'type').toLowerCase();

const isFloatCast = (node: Node): boolean => isNode(node.TypeCast) && isNode(node.TypeCast.typeName) && floatTypes.has(typeNameOf(node.TypeCast.typeName));

/** Functions that return double precision when one of their arguments is. */
const keepingDoublePrecision = new Set([...floatOnlyFunctions, 'abs', 'avg', 'sum', 'min', 'max']);

/**
 * A value of type double precision, whatever the other operands: a cast to it, arithmetic with
 * one such operand (PostgreSQL turns a numeric into double precision, never the other way
 * implicitly), or a function above that keeps it.
 */
function isDoublePrecision(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (isFloatCast(node)) return true;
  if (isNode(node.A_Expr)) {
    const operator = nameParts(node.A_Expr.name).at(-1) ?? '';
    return ['+', '-', '*', '/'].includes(operator) && (isDoublePrecision(node.A_Expr.lexpr) || isDoublePrecision(node.A_Expr.rexpr));
  }
  if (isNode(node.FuncCall)) {
    const name = nameParts(node.FuncCall.funcname).at(-1)?.toLowerCase() ?? '';
    return keepingDoublePrecision.has(name) && Array.isArray(node.FuncCall.args) && node.FuncCall.args.some(isDoublePrecision);
  }
  return false;
}

/** One argument in double precision makes PostgreSQL choose the function's double precision form. */
function inDoublePrecision(what: string, args: unknown[]): void {
  if (args.some(isDoublePrecision)) return;
  throw new Refusal(
    `${what} computes at the precision of a numeric argument, which can be made very large; cast an argument to double precision ` +
      '(sqrt(x::float8), power(x::float8, 2), ln(x::float8) / ln(10::float8)).',
  );
}

/** Table names, aliases and CTE names anywhere in the tree. */
function namesOfRows(tree: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(tree)) for (const item of tree) namesOfRows(item, names);
  if (!isNode(tree)) return names;
  for (const [key, value] of Object.entries(tree)) {
    if ((key === 'relname' || key === 'ctename' || key === 'aliasname') && typeof value === 'string') names.add(value);
    else namesOfRows(value, names);
  }
  return names;
}

/** No column, call or subquery inside: a value fixed by the statement's text. */
const isConstant = (tree: unknown): boolean => !/"(ColumnRef|FuncCall|SubLink|SelectStmt)"/.test(JSON.stringify(tree));

/** char(n) pads with spaces to n: a cast is an allocation of n characters per value. */
const maxCharWidth = 255;

let parserReady: Promise<void> | undefined;

/**
 * Accepts only one SELECT (CTEs allowed) over `tables`, judged on PostgreSQL's own parse tree, and
 * returns that statement's text alone (no trailing semicolon or comment) for the runner.
 */
export async function guardSql(sql: string, tables: ReadonlySet<string>): Promise<GuardResult> {
  if (sql.length > maxSqlLength) return { ok: false, reason: `The statement is longer than ${maxSqlLength} characters.` };
  parserReady ??= loadModule();
  await parserReady;
  let tree: Awaited<ReturnType<typeof parse>>;
  try {
    tree = await parse(sql);
  } catch (error) {
    return { ok: false, reason: `Syntax error: ${error instanceof Error ? error.message : String(error)}` };
  }
  const statements = tree.stmts ?? [];
  if (statements.length !== 1) return { ok: false, reason: 'Send exactly one SELECT statement.' };
  const [only] = statements;
  const root = only.stmt as Node | undefined;
  if (!root || !isNode(root.SelectStmt)) return { ok: false, reason: 'Only a SELECT statement (optionally with WITH) is allowed.' };
  try {
    new TreeCheck(tables, root).check();
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    throw error;
  }
  // Locations are byte offsets into the UTF-8 text.
  const bytes = Buffer.from(sql, 'utf8');
  const start = only.stmt_location ?? 0;
  const end = only.stmt_len ? start + only.stmt_len : bytes.length;
  return { ok: true, statement: bytes.subarray(start, end).toString('utf8').trim() };
}
