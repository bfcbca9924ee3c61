import type { FastifyServerOptions } from 'fastify';

/** Paths pino blanks out wherever they appear in a log line: credentials never reach the logs. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*.token',
];

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(stream ? { stream } : {}),
  };
}
