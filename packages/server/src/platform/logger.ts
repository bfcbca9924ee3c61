import type { FastifyServerOptions } from 'fastify';

const secretFields = ['password', 'secret', 'apiKey', 'api_key', 'token', 'authorization', 'cookie'];

/**
 * Paths pino blanks out in a log line: credentials never reach the logs. pino has no recursive
 * wildcard, so each secret field is covered at the top level and two levels down (`req.headers.x`).
 */
export const redactedPaths = secretFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(stream ? { stream } : {}),
  };
}
