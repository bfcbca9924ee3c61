import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, DestinationStream } from 'pino';
import { standardOutput } from './log-output.js';

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

/** Standard output (log-output.ts) unless `stream` is given. */
export function loggerOptions(level: string, stream: NodeJS.WritableStream | DestinationStream = standardOutput()): FastifyServerOptions['logger'] {
  return { level, redact: { paths: redactedPaths, censor: '[redacted]' }, stream };
}

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * `request.log`, made into a pino child (with the request id) on its first use. Fastify makes one
 * for every request, and only a failing request writes to it: the request line has a logger of
 * its own (logRequest). A pino child under the redaction's wildcard paths costs its bindings'
 * serialization and a formatter object on every request.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(method: LogMethod, args: unknown[]): void {
    const logger = this.logger();
    (logger[method] as (...args: unknown[]) => void).apply(logger, args);
  }

  get level(): string {
    return this.logger().level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(...args: unknown[]): void {
    this.write('silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger, made only when the request logs. */
export const requestLogger = (parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger =>
  new RequestLogger(parent, bindings, options);

/** A request URL as logged: the embed iframe page carries its token in the query (`?token=…`), which never reaches the logs. */
export const loggedUrl = (url: string): string => (url.includes('token=') ? url.replace(/([?&]token=)[^&#]*/g, '$1[redacted]') : url);

const requestLineLoggers = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>();

/**
 * The server's logger without redaction, for the request line alone: every field of that line is
 * chosen by logRequest (the URL with its token blanked), while the redaction's wildcard paths run
 * every field of a line through JSON.stringify: 6.5 against 3.2 µs a line (BENCHMARKS.md, issue 22).
 */
function requestLineLogger(serverLogger: FastifyBaseLogger): FastifyBaseLogger {
  let logger = requestLineLoggers.get(serverLogger);
  if (logger === undefined) requestLineLoggers.set(serverLogger, (logger = serverLogger.child({}, { redact: { paths: [] } })));
  return logger;
}

/**
 * The one line per request: answered (its status and milliseconds) or abandoned by the client
 * before its answer (`aborted`; Fastify's abort hook has no reply to time it by).
 */
export function logRequest(request: FastifyRequest, outcome: { statusCode: number; ms: number } | { aborted: true }): void {
  requestLineLogger(request.server.log).info({ reqId: request.id, method: request.method, url: loggedUrl(request.url), ip: request.ip, ...outcome }, 'request');
}

/** The outcome of an answered request, as `logRequest` takes it. */
export const answered = (reply: FastifyReply) => ({ statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 });
