import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, type FieldProblem, invalid } from './errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are checked strictly ("5" is not a number, unknown fields are errors); query strings and
 * path parameters are text by nature, so numbers in them are coerced.
 */
const bodyAjv = makeAjv({ coerceTypes: false });
const urlAjv = makeAjv({ coerceTypes: 'array' });

const textRuleKeyword = 'vigilText';

const problem = (instancePath: string, message: string): ErrorObject => ({
  instancePath,
  keyword: textRuleKeyword,
  schemaPath: '#',
  params: {},
  message,
});

const pointer = (path: string, key: string): string => `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Deeper input is refused before anything recurses through it (Ajv, the database's JSON). */
const maxDepth = 32;

/**
 * The first place that no route may take: a string (or object key) holding U+0000, which
 * PostgreSQL cannot store in text or jsonb, or nesting deeper than `maxDepth`. Checked here, once
 * for every route, instead of failing in the database; a loop, so no input can exhaust the stack.
 */
function firstForbidden(data: unknown): { path: string; message: string } | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: data, path: '', depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path, message: 'must not contain the NUL character (\\u0000)' };
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) return { path, message: `is nested more than ${maxDepth} levels deep` };
      const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index];
        if (key.includes('\u0000')) return { path, message: 'must not have a field name with the NUL character (\\u0000)' };
        pending.push({ value: item, path: pointer(path, key), depth: depth + 1 });
      }
    }
  }
  return undefined;
}

const numericTypes = new Set(['integer', 'number']);
const decimal = /^-?\d+(\.\d+)?$/;

/** Query and path fields declared as numbers: Ajv's coercion would take "0x10", "1e3" or " 5" for one. */
function numericFields(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => typeof property.type === 'string' && numericTypes.has(property.type))
    .map(([name]) => name);
}

function firstNonDecimal(data: unknown, fields: string[]): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const record = data as Record<string, unknown>;
  return fields.find((field) => typeof record[field] === 'string' && !decimal.test(record[field] as string));
}

type Check = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Ajv's check preceded by the rules every route shares; a failure reads like Ajv's own. */
function withTextRules(validate: ValidateFunction, numeric: string[]): Check {
  const check: Check = (data) => {
    const forbidden = firstForbidden(data);
    if (forbidden !== undefined) {
      check.errors = [problem(forbidden.path, forbidden.message)];
      return false;
    }
    const notDecimal = firstNonDecimal(data, numeric);
    if (notDecimal !== undefined) {
      check.errors = [problem(`/${notDecimal}`, 'must be a decimal number')];
      return false;
    }
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  };
  return check;
}

const compile = (schema: object, httpPart: string | undefined): Check =>
  httpPart === 'body' ? withTextRules(bodyAjv.compile(schema), []) : withTextRules(urlAjv.compile(schema), numericFields(schema));

const compiled = new Map<string, Check>();

/** One check per distinct schema and part: many routes share their path, query or body schema, and each compile costs Ajv milliseconds at start. */
export const schemaCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const key = `${httpPart === 'body' ? 'body' : 'url'} ${JSON.stringify(schema)}`;
  let check = compiled.get(key);
  if (!check) {
    check = compile(schema as object, httpPart);
    compiled.set(key, check);
  }
  return check;
};

function fieldOf(error: ErrorObject, part: string): string {
  const path = error.instancePath
    .replace(/^\//, '')
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const missing = error.keyword === 'required' ? String(error.params.missingProperty) : undefined;
  const extra = error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : undefined;
  const leaf = missing ?? extra;
  const field = [path, leaf].filter(Boolean).join('.');
  return field || part;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** At most this many problems are listed: 60,000 unknown fields must not make a 5 MB answer. */
export const maxProblems = 20;
/** A field name is echoed back at most this long. */
const maxFieldLength = 200;

const shorten = (text: string): string => (text.length > maxFieldLength ? `${text.slice(0, maxFieldLength)}…` : text);

/** One problem per field, in the order Ajv found them, at most `maxProblems`. */
export function fieldProblems(errors: ErrorObject[], part: string): { problems: FieldProblem[]; more: number } {
  const byField = new Map<string, FieldProblem>();
  for (const error of errors) {
    const field = shorten(fieldOf(error, part));
    if (!byField.has(field)) byField.set(field, { field, message: messageOf(error) });
  }
  const all = [...byField.values()];
  return { problems: all.slice(0, maxProblems), more: Math.max(0, all.length - maxProblems) };
}

const compiledValueChecks = new WeakMap<object, ValidateFunction>();

function compiledCheck(schema: object): ValidateFunction {
  let validate = compiledValueChecks.get(schema);
  if (!validate) compiledValueChecks.set(schema, (validate = bodyAjv.compile(schema)));
  return validate;
}

/**
 * A value that did not come through a route (the CLI, the admin socket) checked by the route's
 * own schema: 422 naming `field` as the API would.
 */
export function checkValue(schema: object, value: unknown, field: string): void {
  const validate = compiledCheck(schema);
  if (!validate(value)) throw invalid(field, messageOf(validate.errors![0]));
}

/** VALIDATION_ERROR naming each field's problem (the first few), for the input `part` ("body", "query", "input"…). */
export function invalidInput(errors: ErrorObject[], part: string): ApiError {
  const { problems, more } = fieldProblems(errors, part);
  const summary = problems.map((problem) => `${problem.field} ${problem.message}`).join('; ') + (more ? `; and ${more} more` : '');
  return new ApiError('VALIDATION_ERROR', `The ${part} is invalid: ${summary}.`, problems);
}

/**
 * Checks a value against a route's body schema outside HTTP (GraphQL arguments), so both APIs
 * refuse the same input with the same per-field details.
 */
export function validateInput<T>(schema: TSchema, value: unknown, part: string): T {
  const check = compiledCheck(schema);
  if (!check(value)) throw invalidInput(check.errors ?? [], part);
  return value as T;
}
