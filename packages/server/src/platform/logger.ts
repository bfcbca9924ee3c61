import type { FastifyServerOptions } from 'fastify';

const secretFields = ['password', 'secret', 'apiKey', 'api_key', 'token', 'authorization', 'cookie'];

/**
 * Paths pino blanks out in a log line: credentials never reach the logs. pino has no recursive
 * wildcard, so each secret field is covered at the top level and one level down, and request
 * headers by name. A second wildcard level would double what every log line costs (about 6 µs
 * per request, measured), for objects nothing in Vigil logs.
 */
export const redactedPaths = [
  ...secretFields.flatMap((field) => [field, `*.${field}`]),
  'req.headers.authorization',
  'req.headers.cookie',
];

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(stream ? { stream } : {}),
  };
}

/** A request URL as logged: the embed iframe page carries its token in the query (`?token=…`), which never reaches the logs. */
export const loggedUrl = (url: string): string => (url.includes('token=') ? url.replace(/([?&]token=)[^&#]*/g, '$1[redacted]') : url);
