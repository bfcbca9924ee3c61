import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorResponse = Type.Object({
  error: Type.String(),
  code: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  requestId: Type.Optional(Type.String()),
});

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/** The success responses of a route plus the error format for every failure. */
export function responses<S extends Record<number, TSchema>>(success: S) {
  return { ...success, '4xx': ErrorResponse, '5xx': ErrorResponse };
}

export const NoContent = Type.Null({ description: 'No content' });

/** A string enumeration as plain JSON Schema `enum`, which OpenAPI tools and Ajv messages read best. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

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
