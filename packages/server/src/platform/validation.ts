import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldProblem } from './errors.js';

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

/**
 * The path of the first string (or object key) holding U+0000. PostgreSQL cannot store it in text
 * or jsonb, so it is refused here, once for every route, instead of failing in the database.
 */
function firstNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = firstNul(value[index], `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return path;
      const found = firstNul(item, pointer(path, key));
      if (found !== undefined) return found;
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
    const nul = firstNul(data, '');
    if (nul !== undefined) {
      check.errors = [problem(nul, 'must not contain the NUL character (\\u0000)')];
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

export const schemaCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body'
    ? withTextRules(bodyAjv.compile(schema as object), [])
    : withTextRules(urlAjv.compile(schema as object), numericFields(schema as object));

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
