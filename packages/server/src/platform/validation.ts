import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, type FieldProblem } from './errors.js';

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

export const schemaCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema as object);

function fieldOf(error: ErrorObject, part: string): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
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

/** One problem per field, in the order Ajv found them. */
export function fieldProblems(errors: ErrorObject[], part: string): FieldProblem[] {
  const byField = new Map<string, FieldProblem>();
  for (const error of errors) {
    const field = fieldOf(error, part);
    if (!byField.has(field)) byField.set(field, { field, message: messageOf(error) });
  }
  return [...byField.values()];
}

/** VALIDATION_ERROR naming every field's problem, for the input `part` ("body", "query", "input"…). */
export function invalidInput(errors: ErrorObject[], part: string): ApiError {
  const details = fieldProblems(errors, part);
  const summary = details.map((problem) => `${problem.field} ${problem.message}`).join('; ');
  return new ApiError('VALIDATION_ERROR', `The ${part} is invalid: ${summary}.`, details);
}

const compiledInputs = new WeakMap<TSchema, ReturnType<Ajv['compile']>>();

/**
 * Checks a value against a route's body schema outside HTTP (GraphQL arguments), so both APIs
 * refuse the same input with the same per-field details.
 */
export function validateInput<T>(schema: TSchema, value: unknown, part: string): T {
  let check = compiledInputs.get(schema);
  if (!check) {
    check = bodyAjv.compile(schema);
    compiledInputs.set(schema, check);
  }
  if (!check(value)) throw invalidInput(check.errors ?? [], part);
  return value as T;
}
