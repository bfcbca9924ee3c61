import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { type FormattedExecutionResult, GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApiError } from '../platform/errors.js';

interface GraphqlErrorBody {
  errors: GraphQLFormattedError[];
}

const internal = new ApiError('INTERNAL_ERROR', 'Something went wrong on our side; the request id identifies it in our logs.');

/** The errors mercurius wraps (a failed validation carries the GraphQL errors it found). */
function unwrap(error: GraphQLError): GraphQLError[] {
  const inner = (error.originalError as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(inner)) return [error];
  return inner.map((each: Error) => (each instanceof GraphQLError ? each : new GraphQLError(each.message, { originalError: each })));
}

/**
 * One error as the client sees it: `extensions.code` is the REST code (or QUERY_TOO_COMPLEX), a
 * service's per-field `details` come along, and an unexpected failure is logged and shown only as
 * INTERNAL_ERROR — never a stack trace or an internal message.
 */
export function formatError(error: GraphQLError, log: FastifyBaseLogger): GraphQLFormattedError {
  const where = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
  const original = error.originalError;
  if (original instanceof ApiError) {
    if (original.status >= 500 && original.code === 'INTERNAL_ERROR') log.error({ err: original }, 'graphql resolver failed');
    const extensions = { code: original.code, ...(original.details ? { details: original.details } : {}) };
    return { message: original.message, ...where, extensions };
  }
  if (typeof error.extensions.code === 'string') return { message: error.message, ...where, extensions: { code: error.extensions.code } };
  if (original === undefined || original instanceof GraphQLError) {
    // The document or its variables do not fit the schema; graphql-js's messages name only the query's own parts.
    return { message: error.message, ...where, extensions: { code: 'VALIDATION_ERROR' } };
  }
  if ((original as { code?: unknown }).code === 'MER_ERR_METHOD_NOT_ALLOWED') {
    return { message: 'Only queries may be sent with GET; send mutations with POST.', extensions: { code: 'VALIDATION_ERROR' } };
  }
  log.error({ err: original }, 'graphql operation failed');
  return { message: internal.message, ...where, extensions: { code: internal.code } };
}

/** Any error of an operation as GraphQL errors in the client's format. */
export function formatErrors(errors: readonly Error[], log: FastifyBaseLogger): GraphQLFormattedError[] {
  return errors
    .map((error) => (error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error })))
    .flatMap(unwrap)
    .map((error) => formatError(error, log));
}

/** mercurius' errorFormatter: field errors answer 200 beside whatever data resolved (GraphQL over HTTP). */
export function errorFormatter(
  execution: { data?: FormattedExecutionResult['data']; errors: readonly GraphQLError[] },
  context: { reply?: FastifyReply; app: { log: FastifyBaseLogger } },
): { statusCode: number; response: FormattedExecutionResult } {
  const log = context.reply?.log ?? context.app.log;
  return { statusCode: 200, response: { data: execution.data ?? null, errors: formatErrors(execution.errors, log) } };
}

/** A refusal before GraphQL runs (401, 403, 429, 413): the REST status and headers, a GraphQL body. */
export function sendGraphqlError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  const body: GraphqlErrorBody = { errors: [{ message: error.message, extensions: { code: error.code, requestId: request.id } }] };
  return reply.status(error.status).type('application/json; charset=utf-8').send(body);
}
