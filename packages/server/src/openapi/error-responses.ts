import type { FastifySchema } from 'fastify';
import { type ErrorStatus, errorWith } from '../platform/route-schemas.js';

const everyOperation: Partial<Record<ErrorStatus, string>> = {
  401: 'The API key is missing, malformed, unknown, revoked or expired (UNAUTHORIZED).',
  403: "The organization's plan does not include API access (PLAN_UPGRADE_REQUIRED).",
  429: "The organization's requests for this minute are used up (RATE_LIMITED); Retry-After says when to try again.",
  500: 'An unexpected failure (INTERNAL_ERROR), logged with the request id.',
};
const withPathIds = { 404: "No such resource in this organization (NOT_FOUND); another organization's ids are not found either." };
const withBody = {
  413: 'The body is larger than this operation accepts (PAYLOAD_TOO_LARGE).',
  415: "The body's Content-Type is not one this operation accepts (UNSUPPORTED_MEDIA_TYPE).",
  422: 'The body or query is invalid (VALIDATION_ERROR); details names each field.',
};
const withQuery = { 422: 'The query is invalid (VALIDATION_ERROR); details names each field.' };

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
 * statuses it declares with its own reason: 409, 502, 503, …) and, one by one with the Error
 * schema, the statuses its shape makes possible: every operation 401, 403, 429, 500; a path id
 * 404; a body 413, 415, 422; a query 422.
 */
export function documentedResponses(schema: FastifySchema): Record<string, unknown> {
  const declared = Object.entries(schema.response as Record<string, { description?: string; $ref?: string }>)
    .filter(([status]) => !ranges.has(status))
    .map(([status, response]) => [status, response.description || !success[status] ? response : describe(response, success[status])] as const);
  const shared = {
    ...everyOperation,
    ...(schema.params ? withPathIds : {}),
    ...(schema.querystring ? withQuery : {}),
    ...(schema.body ? withBody : {}),
  };
  const added = Object.entries(shared)
    .filter(([status]) => !declared.some(([own]) => own === status))
    .map(([status, description]) => [status, errorWith(description)]);
  return Object.fromEntries([...declared, ...added]);
}
