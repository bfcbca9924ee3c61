import type { FastifySchema } from 'fastify';
import { type ErrorStatus, errorWith } from '../platform/route-schemas.js';

/** What any request may be answered, whatever the operation: refused at the door, by the limits, or by the server's state. */
const everyOperation: Partial<Record<ErrorStatus, string>> = {
  401: 'The API key is missing, malformed, unknown, revoked or expired, or the console session has ended (UNAUTHORIZED).',
  403:
    "The organization's plan does not include API access (PLAN_UPGRADE_REQUIRED), or the caller may not do this (FORBIDDEN): " +
    "a console session's role, or a rule such as admin sessions only.",
  408: 'The request did not arrive within VIGIL_REQUEST_TIMEOUT_MS (REQUEST_TIMEOUT).',
  422: 'The request is invalid (VALIDATION_ERROR): a header with a byte HTTP forbids, a malformed Idempotency-Key; details names the field when one is at fault.',
  429: "The organization's (or console session's) requests for this minute are used up (RATE_LIMITED); Retry-After says when to try again.",
  431: 'The request line and headers are larger than the server accepts (HEADERS_TOO_LARGE).',
  500: 'An unexpected failure (INTERNAL_ERROR), logged with the request id.',
  503: 'The server is shutting down or its database is unreachable (SERVICE_UNAVAILABLE); Retry-After says when to try again.',
};
const notFound = "No such resource in this organization (NOT_FOUND); another organization's ids are not found either.";
const withBody = {
  413: 'The body is larger than this operation accepts (PAYLOAD_TOO_LARGE).',
  415: "The body's Content-Type is not one this operation accepts (UNSUPPORTED_MEDIA_TYPE).",
  422: 'The body, a header or the query is invalid (VALIDATION_ERROR); details names each field.',
};
const withQuery = { 422: 'The query or a header is invalid (VALIDATION_ERROR); details names each field.' };

/** Methods whose requests may carry a body, which can then be refused (too large, wrong media type, malformed). */
const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether the schema names another resource by id (`projectId`, `datasetId`, …): then that id may be not found. */
const namesAnId = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && JSON.stringify((schema as { properties?: unknown }).properties ?? {}).match(/"\w+Id":/) !== null;

const success: Record<string, string> = {
  200: 'Success.',
  201: 'Created.',
  202: 'Accepted: the work goes on in the background.',
  204: 'Done; no content.',
};

/** A response's description: beside a reference; otherwise under the key @fastify/swagger takes out of the schema. */
const describe = (response: object & { $ref?: string }, description: string) =>
  response.$ref ? { ...response, description } : { ...response, 'x-response-description': description };

/** The 4xx and 5xx ranges the routes serialize errors with, replaced in the document by the statuses themselves. */
const ranges = new Set(['4xx', '5xx']);

/**
 * The route's responses as the OpenAPI document lists them: its own (success, and the error
 * statuses it declares with its own reason: 409, 502, …) and, one by one with the Error schema,
 * every status its rules make possible: every operation 401, 403, 408, 422, 429, 431, 500, 503; a
 * path id, or an id named in the body or query, 404; a method that may carry a body 413, 415, 422.
 */
export function documentedResponses(schema: FastifySchema, method: string): Record<string, unknown> {
  const declared = Object.entries(schema.response as Record<string, { description?: string; $ref?: string }>)
    .filter(([status]) => !ranges.has(status))
    .map(([status, response]) => [status, response.description || !success[status] ? response : describe(response, success[status])] as const);
  const shared = {
    ...everyOperation,
    ...(schema.params || namesAnId(schema.body) || namesAnId(schema.querystring) ? { 404: notFound } : {}),
    ...(schema.querystring ? withQuery : {}),
    ...(schema.body || bodyMethods.has(method) ? withBody : {}),
  };
  const added = Object.entries(shared)
    .filter(([status]) => !declared.some(([own]) => own === status))
    .map(([status, description]) => [status, errorWith(description)]);
  return Object.fromEntries([...declared, ...added]);
}
