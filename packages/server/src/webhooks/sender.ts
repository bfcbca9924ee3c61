import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, Client, type Dispatcher } from 'undici';
import type { AttemptError } from '../modules/webhooks/schema.js';
import type { Clock } from '../platform/clock.js';
import { checkUrlForm, guardedLookup, type ResolveAll, UrlRejectedError } from './url-guard.js';

/** What an attempt keeps of the response body. */
const responseBodyLimit = 4096;
/** Read at most this much of a response before dropping its connection instead of draining it. */
const drainLimit = 64 * 1024;
/**
 * How long an idle connection is kept for the next attempt. Receivers that do not say how long they
 * keep one (no Keep-Alive header) often close it after 2 to 5 s (gunicorn 2 s, many proxies 5 s);
 * staying under that avoids most requests written into a connection the receiver is closing. A
 * receiver's own Keep-Alive timeout is followed, less 2 s, up to a minute.
 */
const idleConnectionMs = 1500;

export interface SenderOptions {
  clock: Clock;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Keep-alive connections per origin. */
  connectionsPerOrigin: number;
  resolveAll?: ResolveAll;
  /** Trusted CAs instead of the system's (tests; operators use NODE_EXTRA_CA_CERTS). */
  ca?: string[];
}

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: AttemptError | null;
  /** Why, in a sentence, where the error kind says too little (a TLS failure). */
  errorDetail: string | null;
  responseBody: string | null;
  retryAfter: string | undefined;
  /** The request's headers as sent, signatures included. */
  requestHeaders: Record<string, string>;
}

/** Where an attempt's request goes, or why it does not go out. */
type Target = { origin: string; path: string } | 'invalid_url' | 'blocked_address';

/** Distinct urls whose check is kept; a url's check depends on nothing else, so it is made once. */
const maxTargets = 10_000;

/**
 * POSTs deliveries through one undici Agent: a keep-alive pool per origin, redirects not followed,
 * every new connection made through the guarded lookup, and one timer over the whole attempt.
 * Runs once per attempt, thousands a second: no closure or object it can do without.
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly connectionOptions: Client.Options;
  private readonly targets = new Map<string, Target>();

  constructor(private readonly options: SenderOptions) {
    this.connectionOptions = {
      pipelining: 1,
      keepAliveTimeout: idleConnectionMs,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: options.timeoutMs + 1000,
      bodyTimeout: options.timeoutMs + 1000,
      connect: {
        timeout: options.timeoutMs,
        lookup: guardedLookup({ allowPrivate: options.allowPrivate, resolveAll: options.resolveAll }),
        ...(options.ca ? { ca: options.ca } : {}),
      },
    };
    this.agent = new Agent({ connections: options.connectionsPerOrigin, ...this.connectionOptions });
  }

  async send(request: AttemptRequest): Promise<AttemptOutcome> {
    const startedAt = this.options.clock.now();
    const start = performance.now();
    const target = this.target(request.url);
    if (typeof target === 'string') return ended(request, startedAt, start, null, { error: target });
    // The attempt's one timer aborts through an EventEmitter, which undici takes as a signal: an
    // AbortController per attempt, with the EventTarget listeners undici adds and removes, was a
    // large share of the worker's CPU per delivery (BENCHMARKS.md, 2026-11-28).
    const abort = new EventEmitter();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.emit('abort');
    }, this.options.timeoutMs);
    let httpStatus: number | null = null;
    let fresh: Client | undefined;
    try {
      const response = await post(this.agent, target, request, abort).catch((error: unknown) => {
        if (timedOut || !closedBeforeAnswer(error)) throw error;
        // The connection closed before any answer: most often a kept-alive one that the receiver
        // closed as the request went out. Sent again at once on a new connection, once. Safe: no
        // response came, so nothing was decided, and receivers drop repeats by webhook-id anyway.
        fresh = new Client(target.origin, this.connectionOptions);
        return post(fresh, target, request, abort);
      });
      httpStatus = response.statusCode;
      const responseBody = await readPrefix(response.body);
      const retryAfter = response.headers['retry-after'];
      return ended(request, startedAt, start, httpStatus, { responseBody, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
    } catch (error) {
      return ended(request, startedAt, start, httpStatus, timedOut ? { error: 'timeout' } : classify(error));
    } finally {
      clearTimeout(timer);
      if (fresh) await fresh.destroy();
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = checkedTarget(url, this.options.allowPrivate);
      if (this.targets.size >= maxTargets) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }
}

function checkedTarget(raw: string, allowPrivate: boolean): Target {
  try {
    const { url } = checkUrlForm(raw, allowPrivate);
    return { origin: url.origin, path: `${url.pathname}${url.search}` };
  } catch (error) {
    return error instanceof UrlRejectedError && error.blockedAddress ? 'blocked_address' : 'invalid_url';
  }
}

function post(dispatcher: Dispatcher, target: Exclude<Target, string>, request: AttemptRequest, signal: EventEmitter) {
  return dispatcher.request({ origin: target.origin, path: target.path, method: 'POST', headers: request.headers, body: request.body, signal });
}

function ended(
  request: AttemptRequest,
  startedAt: Date,
  start: number,
  httpStatus: number | null,
  fields: Partial<Pick<AttemptOutcome, 'error' | 'errorDetail' | 'responseBody' | 'retryAfter'>>,
): AttemptOutcome {
  return {
    startedAt,
    durationMs: Math.round(performance.now() - start),
    httpStatus,
    error: fields.error ?? null,
    errorDetail: fields.errorDetail ?? null,
    responseBody: fields.responseBody ?? null,
    retryAfter: fields.retryAfter,
    requestHeaders: request.headers,
  };
}

/**
 * The first 4 KiB as text (NUL removed: PostgreSQL text cannot hold it); the rest drained or dropped.
 * Read by its events rather than an async iterator made for every response (the same measurement).
 */
function readPrefix(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let seen = 0;
    body.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (keptBytes < responseBodyLimit) {
        const part = chunk.subarray(0, responseBodyLimit - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (seen > drainLimit) {
        body.destroy();
        resolve(text(kept));
      }
    });
    body.once('end', () => resolve(text(kept)));
    body.once('error', reject);
  });
}

function text(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8').replace(/\u0000/g, '');
}

const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL']);
const closedCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** What a TLS failure's code means to the person who runs the receiver. */
const tlsReasons: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted issuer: the certificate is not signed by a trusted authority, or the server does not send its intermediate certificates',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted issuer: the issuer of a certificate in the chain is unknown',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted issuer: the certificate is not signed by a trusted authority, or the server does not send its intermediate certificates',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted issuer: the chain ends in a self-signed certificate that is not trusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted issuer: the certificate is self-signed',
  CERT_UNTRUSTED: 'untrusted issuer: the root certificate is not trusted',
  CERT_HAS_EXPIRED: 'expired: the certificate is past its validity period',
  CERT_NOT_YET_VALID: 'not yet valid: the certificate starts its validity period later',
  CERT_REVOKED: 'revoked: the certificate has been revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'name mismatch: the certificate is not for this host name',
};

/** True when the connection ended (closed or reset) before any part of an answer. */
function closedBeforeAnswer(error: unknown): boolean {
  return causes(error).some((cause) => closedCodes.has((cause as NodeJS.ErrnoException).code ?? ''));
}

function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current = error; current instanceof Error; current = current.cause) chain.push(current);
  return chain;
}

/** The error kind an attempt records, from the error or any error that caused it; for TLS, why. */
function classify(error: unknown): Pick<AttemptOutcome, 'error' | 'errorDetail'> {
  for (const current of causes(error)) {
    const code = (current as NodeJS.ErrnoException).code ?? '';
    if (code === 'EVIGILBLOCKED') return { error: 'blocked_address', errorDetail: null };
    if (timeoutCodes.has(code)) return { error: 'timeout', errorDetail: null };
    if (dnsCodes.has(code)) return { error: 'dns', errorDetail: null };
    if (code === 'ECONNREFUSED') return { error: 'refused', errorDetail: null };
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET/.test(code)) return { error: 'tls', errorDetail: tlsDetail(current, code) };
  }
  return { error: 'connection', errorDetail: null };
}

function tlsDetail(error: Error, code: string): string {
  const reason = tlsReasons[code] ?? `handshake failed: ${error.message}`;
  // Node says which names the certificate holds, e.g. "Host: a.example. is not in the cert's altnames: DNS:b.example".
  const names = code === 'ERR_TLS_CERT_ALTNAME_INVALID' && 'reason' in error ? ` (${String(error.reason)})` : '';
  return `${reason}${names} [${code}]`;
}
