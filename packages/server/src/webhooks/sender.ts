import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import type { AttemptError } from '../modules/webhooks/schema.js';
import type { Clock } from '../platform/clock.js';
import { checkUrlForm, guardedLookup, type ResolveAll, UrlRejectedError } from './url-guard.js';

/** What an attempt keeps of the response body. */
const responseBodyLimit = 4096;
/** Read at most this much of a response before dropping its connection instead of draining it. */
const drainLimit = 64 * 1024;

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
  responseBody: string | null;
  retryAfter: string | undefined;
}

/**
 * POSTs deliveries through one undici Agent: a keep-alive pool per origin, redirects not followed,
 * every new connection made through the guarded lookup, and one timer over the whole attempt.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: options.timeoutMs + 1000,
      bodyTimeout: options.timeoutMs + 1000,
      connect: {
        timeout: options.timeoutMs,
        lookup: guardedLookup({ allowPrivate: options.allowPrivate, resolveAll: options.resolveAll }),
        ...(options.ca ? { ca: options.ca } : {}),
      },
    });
  }

  async send(request: AttemptRequest): Promise<AttemptOutcome> {
    const startedAt = this.options.clock.now();
    const start = performance.now();
    const finish = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
      startedAt,
      durationMs: Math.round(performance.now() - start),
      httpStatus: null,
      error: null,
      responseBody: null,
      retryAfter: undefined,
      ...fields,
    });
    let url: URL;
    try {
      url = checkUrlForm(request.url, this.options.allowPrivate).url;
    } catch (error) {
      return finish({ error: error instanceof UrlRejectedError && error.blockedAddress ? 'blocked_address' : 'invalid_url' });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    let httpStatus: number | null = null;
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      });
      httpStatus = response.statusCode;
      const responseBody = await readPrefix(response.body);
      const retryAfter = response.headers['retry-after'];
      return finish({ httpStatus, responseBody, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
    } catch (error) {
      return finish({ httpStatus, error: controller.signal.aborted ? 'timeout' : classify(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The first 4 KiB as text (NUL removed: PostgreSQL text cannot hold it); the rest drained or dropped. */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (keptBytes < responseBodyLimit) {
      const part = chunk.subarray(0, responseBodyLimit - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (seen > drainLimit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(kept).toString('utf8').replace(/\u0000/g, '');
}

const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL']);

/** The error kind an attempt records, from the error or any error that caused it. */
function classify(error: unknown): AttemptError {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code ?? '';
    if (code === 'EVIGILBLOCKED') return 'blocked_address';
    if (timeoutCodes.has(code)) return 'timeout';
    if (dnsCodes.has(code)) return 'dns';
    if (code === 'ECONNREFUSED') return 'refused';
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET/.test(code)) return 'tls';
  }
  return 'connection';
}
