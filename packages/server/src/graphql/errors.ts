import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApiError } from '../platform/errors.js';

interface GraphqlErrorBody {
  errors: GraphQLFormattedError[];
}

const internal = new ApiError('INTERNAL_ERROR', 'Something went wrong on our side; the request id identifies it in our logs.');

/** The service error a GraphQL error stands for, through any wrapping (graphql-js, graphql-jit). */
function apiErrorIn(error: unknown): ApiError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof ApiError) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

function formatKnown(error: GraphQLError, log: FastifyBaseLogger): GraphQLFormattedError {
  const where = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
  const service = apiErrorIn(error);
  if (service) {
    if (service.status >= 500 && service.code === 'INTERNAL_ERROR') log.error({ err: service }, 'graphql resolver failed');
    const extensions = { code: service.code, ...(service.details ? { details: service.details } : {}) };
    return { message: service.message, ...where, extensions };
  }
  const code = error.extensions?.code;
  if (typeof code === 'string') return { message: error.message, ...where, extensions: { code } };
  const original = error.originalError;
  if (original === undefined || original === null || original instanceof GraphQLError) {
    // The document or its variables do not fit the schema; graphql-js's messages name only the query's own parts.
    return { message: error.message, ...where, extensions: { code: 'VALIDATION_ERROR' } };
  }
  log.error({ err: original }, 'graphql operation failed');
  return { message: internal.message, ...where, extensions: { code: internal.code } };
}

/**
 * One error as the client sees it: `extensions.code` is the REST code (or QUERY_TOO_COMPLEX), a
 * service's per-field `details` come along, and an unexpected failure is logged and shown only as
 * INTERNAL_ERROR — never a stack trace or an internal message. It never throws, whatever it is given.
 */
export function formatError(error: unknown, log: FastifyBaseLogger): GraphQLFormattedError {
  try {
    const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error instanceof Error ? error : undefined });
    return formatKnown(graphqlError, log);
  } catch (failure) {
    log.error({ err: failure }, 'graphql error could not be formatted');
    return { message: internal.message, extensions: { code: internal.code } };
  }
}

/** A refusal before GraphQL runs (401, 403, 429, 413, 415, 400): the REST status and headers, a GraphQL body. */
export function sendGraphqlError(reply: FastifyReply, request: FastifyRequest, error: ApiError, status = error.status): FastifyReply {
  const body: GraphqlErrorBody = { errors: [{ message: error.message, extensions: { code: error.code, requestId: request.id } }] };
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}
