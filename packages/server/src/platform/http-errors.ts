import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseRetryAfterSeconds, DatabaseUnavailable } from '../db/unavailable.js';
import { ApiError, RetryLater } from './errors.js';
import { shouldRetry, shouldRetryHeader } from './retry-hint.js';
import { invalidInput } from './validation.js';

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
  requestId: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The media types a route takes when it does not take JSON, named in its 415 answer. */
    accepts?: string[];
  }
}

const unsupportedMediaType = (request: FastifyRequest): ApiError => {
  const accepts = request.routeOptions.config.accepts ?? ['application/json'];
  return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${accepts.join(' or ')}.`);
};

function validationFailure(error: FastifyError): ApiError {
  const part = error.validationContext ?? 'body';
  // A path id that fails its schema (too long, a NUL character) names nothing that can exist.
  if (part === 'params') return new ApiError('NOT_FOUND', 'No such resource: the id in the path cannot exist.');
  return invalidInput(error.validation as Parameters<typeof invalidInput>[0], part === 'querystring' ? 'query' : part);
}

/** Fastify's own failures, translated into the API's codes. */
export function translate(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationFailure(error);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('VALIDATION_ERROR', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return unsupportedMediaType(request);
  }
  if (error instanceof DatabaseUnavailable) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The database is not reachable right now; retry after the time in Retry-After.');
  }
  if (error instanceof SyntaxError) return new ApiError('VALIDATION_ERROR', 'The body is not valid JSON.');
  if (error.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'The body is larger than this endpoint accepts.');
  return new ApiError('INTERNAL_ERROR', 'Something went wrong on our side; the request id identifies it in our logs.');
}

export function errorBody(error: ApiError, request: FastifyRequest): ErrorBody {
  return {
    error: error.message,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
    requestId: request.id,
  };
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  return reply
    .status(error.status)
    .header(shouldRetryHeader, shouldRetry(error))
    .type('application/json; charset=utf-8')
    .send(errorBody(error, request));
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = translate(error, request);
    if (error instanceof DatabaseUnavailable) reply.header('Retry-After', databaseRetryAfterSeconds);
    if (error instanceof RetryLater) reply.header('Retry-After', error.retryAfter);
    // Only our own failures are errors; an unreachable provider or a missing component is the operator's to see, not page on.
    if (apiError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request failed');
    else if (apiError.status >= 500) request.log.warn({ code: apiError.code, reason: apiError.message }, 'request not served');
    return sendError(reply, request, apiError);
  });
}

const noRoute = (request: FastifyRequest) => new ApiError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`);

/** Unknown paths answer in the error format; under /api/v1 they are reached only after authentication. */
export function installNotFoundHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => sendError(reply, request, noRoute(request)));
}

/**
 * Fastify's `frameworkErrors`: a path it cannot route (a malformed %-escape, a segment longer than
 * any id) fails before every hook, so it would otherwise answer in Fastify's own format.
 */
export function answerUnroutable(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  void sendError(reply, request, noRoute(request));
}
