import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { errorCodes } from './errors.js';

/**
 * A reference to a schema registered by its `$id` (see openapi/shared-schemas.ts): the OpenAPI
 * document shows it once under components.schemas, and the serializer resolves it at start-up.
 */
export function refTo<T extends TSchema>(schema: T) {
  if (!schema.$id) throw new Error('refTo needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

/** A string enumeration as plain JSON Schema `enum`, which OpenAPI tools and Ajv messages read best. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string; $id?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const ErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, as a sentence for people.' }),
    code: StringEnum(errorCodes, { description: 'What went wrong, for programs: stable across releases.' }),
    details: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'One entry per field with a problem.' }),
    ),
    requestId: Type.Optional(Type.String({ description: 'The X-Request-Id of this request, to find it in the logs.' })),
  },
  { $id: 'Error', description: 'The body of every error response.' },
);

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/**
 * A route's success responses, and the error statuses particular to it, each with why it happens.
 * Any other 4xx and 5xx is serialized with the same Error schema; the OpenAPI document lists the
 * statuses every operation shares (401, 403, 429, 500, and 404/413/415/422 where the route's shape
 * allows them) one by one (openapi/error-responses.ts).
 */
export function responses<S extends Record<number, TSchema>>(success: S, errors: Partial<Record<ErrorStatus, string>> = {}) {
  const described = Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, errorWith(description)]));
  return { ...success, ...described, '4xx': errorWith('A client error.'), '5xx': errorWith('A server error.') } as S;
}

export type ErrorStatus = 401 | 403 | 404 | 408 | 409 | 413 | 415 | 422 | 429 | 431 | 500 | 502 | 503;

/** The error body, documented with the reason for one status. */
export const errorWith = (description: string) => Type.Ref(ErrorResponse.$id!, { description });

export const NoContent = Type.Null({ description: 'No content' });

/**
 * A string or null as `type: ["string", "null"]`. The response serializer writes that directly;
 * the anyOf that `Type.Union` makes has it test every value against each branch (measured: the
 * alert list serialized a fifth faster and with less garbage).
 */
export const NullableString = (options: { format?: string; description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = NullableString({ format: 'date-time' });

/** An optional input text that may also be sent as null to clear it. */
export const OptionalText = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

/**
 * The OpenAPI naming every operation carries (operationId = client method + resource, a summary,
 * and the client method path the client libraries' coverage tests read).
 */
export const operation = (operationId: string, clientMethod: string, summary: string) => ({
  operationId,
  summary,
  'x-vigil-client-method': clientMethod,
});
