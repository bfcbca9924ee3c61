import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationTypeNode,
  parse,
  validate,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { limits, SchemaLimits, tooComplex } from './limits.js';

const invalid = (message: string) => new GraphQLError(message, { extensions: { code: 'VALIDATION_ERROR' } });

/** A query text as it was parsed, measured and validated once; what depends on variables is checked per request. */
interface KnownDocument {
  /** Refusals that depend on the text alone (syntax, limits, validation, NUL), or none. */
  errors: readonly GraphQLError[] | undefined;
  document: DocumentNode;
  /** Whether a limit reads a variable (`first: $n`), so the measure must be taken again with each request's. */
  readsVariables: boolean;
  /** The most any of its operations costs, when that does not depend on variables. */
  cost: number;
  /** Runs of each operation, and its compiled form once it has run once (graphql-jit). */
  runs: Map<string, number>;
  compiled: Map<string, CompiledQuery>;
}

export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationTypeNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
  /** The operation's cost, summed over a batch. */
  cost: number;
  execute(contextValue: unknown): Promise<ExecutionResult>;
}

export interface OperationRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** Texts kept, and their total length: a client repeating a query pays for parsing, limits and validation once. */
const cacheEntries = 1_000;
const cacheCharacters = 4_000_000;

/** The first string in a variables value that holds a NUL character, as its path; PostgreSQL cannot store one. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return path;
    const found = nulPath(inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** A syntax error as it is, but the parser's own limits are limits like the others. */
function unparsable(error: unknown): GraphQLError {
  // The parser recurses into nested lists and selections: nesting in the thousands overflows its stack.
  if (error instanceof RangeError) return tooComplex('The query nests too deeply to be read.');
  const syntax = error as GraphQLError;
  // graphql-js reports the token limit as a syntax error.
  return /more th\w+ \d+ tokens/.test(syntax.message) ? tooComplex(`The query has more than ${limits.tokens} tokens.`) : syntax;
}

const nulMessage = (where: string) => `${where} must not contain the NUL character (\\u0000).`;

function nulInDocument(document: DocumentNode): GraphQLError | undefined {
  let found: GraphQLError | undefined;
  visit(document, {
    StringValue(node) {
      if (!found && node.value.includes('\u0000')) found = invalid(nulMessage('A string in the query'));
    },
  });
  return found;
}

/**
 * Turns a query text into an operation ready to run, refusing in this order, each step bounded by
 * the one before: length; tokens (the parser stops there); the limits, measured in time linear in
 * the document (limits.ts), before validation, whose overlapping-fields rule is quadratic in the
 * fields a document expands to; validation; NUL characters in strings and variables.
 */
export class DocumentCache {
  private readonly known = new Map<string, KnownDocument>();
  private characters = 0;
  readonly limits: SchemaLimits;

  constructor(private readonly schema: GraphQLSchema) {
    this.limits = new SchemaLimits(schema);
  }

  prepare(request: OperationRequest): PreparedOperation | readonly GraphQLError[] {
    if (request.query.length > limits.querySize) return [tooComplex(`The query is longer than ${limits.querySize} characters.`)];
    const known = this.lookup(request.query);
    if (known.errors) return known.errors;
    const operationName = request.operationName ?? undefined;
    const variables = request.variables ?? {};
    const nulAt = nulPath(variables, '');
    if (nulAt !== undefined) return [invalid(nulMessage(`The variable $${nulAt}`))];
    const operation = getOperationAST(known.document, operationName);
    if (!operation) {
      return [invalid(operationName ? `The document has no operation named "${operationName}".` : 'The document has several operations: name one in operationName.')];
    }
    let cost = known.cost;
    if (known.readsVariables) {
      const measure = this.limits.measure(known.document, operationName, variables);
      const excess = this.limits.excess(measure);
      if (excess) return [excess];
      cost = measure.cost;
    }
    return {
      document: known.document,
      operation: operation.operation,
      operationName,
      variables,
      cost,
      execute: (contextValue) => this.execute(known, operationName, variables, contextValue),
    };
  }

  private lookup(query: string): KnownDocument {
    const cached = this.known.get(query);
    if (cached) {
      this.known.delete(query);
      this.known.set(query, cached);
      return cached;
    }
    const known = this.examine(query);
    this.known.set(query, known);
    this.characters += query.length;
    for (const [text] of this.known) {
      if (this.known.size <= cacheEntries && this.characters <= cacheCharacters) break;
      this.known.delete(text);
      this.characters -= text.length;
    }
    return known;
  }

  private examine(query: string): KnownDocument {
    const known: KnownDocument = { errors: undefined, document: { kind: Kind.DOCUMENT, definitions: [] }, readsVariables: false, cost: 0, runs: new Map(), compiled: new Map() };
    try {
      known.document = parse(query, { maxTokens: limits.tokens });
    } catch (error) {
      known.errors = [unparsable(error)];
      return known;
    }
    let measure;
    try {
      measure = this.limits.measure(known.document, undefined, {});
    } catch (error) {
      known.errors = [error as GraphQLError];
      return known;
    }
    known.readsVariables = measure.readsVariables;
    known.cost = measure.cost;
    // With variables the cost may change; the other limits depend on the text alone.
    const excess = this.limits.excess(measure.readsVariables ? { ...measure, cost: 0 } : measure);
    if (excess) known.errors = [excess];
    else {
      const problems = validate(this.schema, known.document);
      const nul = nulInDocument(known.document);
      if (problems.length > 0) known.errors = problems;
      else if (nul) known.errors = [nul];
    }
    return known;
  }

  /** graphql-js the first time; from then on the operation compiled to JavaScript by graphql-jit. */
  private async execute(known: KnownDocument, operationName: string | undefined, variables: Record<string, unknown>, contextValue: unknown): Promise<ExecutionResult> {
    const key = operationName ?? '';
    const compiled = known.compiled.get(key);
    if (compiled) return compiled.query(undefined, contextValue, variables);
    const runs = (known.runs.get(key) ?? 0) + 1;
    known.runs.set(key, runs);
    if (runs > 1) {
      const compiling = compileQuery(this.schema, known.document, operationName);
      if (isCompiledQuery(compiling)) {
        known.compiled.set(key, compiling);
        return compiling.query(undefined, contextValue, variables);
      }
    }
    return execute({ schema: this.schema, document: known.document, operationName, variableValues: variables, contextValue });
  }
}
