import { APIPromise, type RawAnswer, readAnswer } from './api-promise.js';
import { retryDelayMs, sleep } from './backoff.js';
import { APIConnectionError, APIError, APITimeoutError, errorFor, VigilError } from './errors.js';
import { Alerts } from './resources/alerts.js';
import { Chat } from './resources/chat.js';
import { Connections } from './resources/connections.js';
import { Dashboards } from './resources/dashboards.js';
import { Datasets } from './resources/datasets.js';
import { Embed } from './resources/embed.js';
import { Exports } from './resources/exports.js';
import { History } from './resources/history.js';
import { Integrations } from './resources/integrations.js';
import { Projects } from './resources/projects.js';
import { Usage } from './resources/usage.js';
import { Users } from './resources/users.js';
import { Webhooks } from './resources/webhooks.js';
import { VERSION } from './version.js';
import { webCrypto } from './web-crypto.js';

export interface ClientOptions {
  /** `svc_live_…`; defaults to the `VIGIL_API_KEY` environment variable where there is one. */
  apiKey?: string;
  /** The API's base URL, ending with `/api/v1`; defaults to `VIGIL_BASE_URL`, else `http://127.0.0.1:3000/api/v1`. */
  baseUrl?: string;
  /** Milliseconds one attempt may take, answer included (default 60 000). */
  timeout?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
}

export type QueryValue = string | number | boolean | null | undefined;

/** What any one call may override: every method's last argument. */
export interface RequestOptions {
  /** Milliseconds one attempt may take, answer included. */
  timeout?: number;
  /** Retries after the first attempt. */
  maxRetries?: number;
  /** Cancels the call; a cancelled call is never retried and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** POST only: the `Idempotency-Key` (a random UUID when omitted), the same on every retry. */
  idempotencyKey?: string;
  /** Headers for this call, over the client's `defaultHeaders`. */
  headers?: Record<string, string>;
  /** Query parameters added to this call's URL (beside the method's own). */
  query?: Record<string, QueryValue>;
}

/** A request as the resources describe it; `Vigil.request` does the rest. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the base URL, e.g. `/alerts/alrt_…`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, instead of `body`; a stream can be sent only once, so it is never retried. */
  rawBody?: { body: BodyInit; contentType?: string; replayable: boolean };
  /** Leave the answer's body unread for the caller to stream (a download). */
  stream?: boolean;
  options?: RequestOptions;
}

const defaultBaseUrl = 'http://127.0.0.1:3000/api/v1';
const clientName = `@vigil/client/${VERSION}`;

function environment(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] || undefined;
}

/**
 * The server's `x-should-retry` when it sent one; else 408, 429, 5xx, and 409 when the first request
 * with the same idempotency key is still running.
 */
function isRetryable(error: APIError): boolean {
  const hint = error.headers.get('x-should-retry');
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  return error.status === 408 || error.status === 429 || error.status >= 500 || error.code === 'IDEMPOTENCY_IN_PROGRESS';
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { error: text.slice(0, 500) };
  }
}

/** The Vigil REST API. One instance per key; it holds no connections of its own. */
export class Vigil {
  readonly baseUrl: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly projects = new Projects(this);
  readonly alerts = new Alerts(this);
  readonly users = new Users(this);
  readonly webhooks = new Webhooks(this);
  readonly datasets = new Datasets(this);
  readonly connections = new Connections(this);
  readonly chat = new Chat(this);
  readonly history = new History(this);
  readonly usage = new Usage(this);
  readonly exports = new Exports(this);
  readonly dashboards = new Dashboards(this);
  readonly embed = new Embed(this);
  readonly integrations = new Integrations(this);
  readonly #options: ClientOptions;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #defaultHeaders: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? environment('VIGIL_API_KEY');
    if (!apiKey) {
      throw new VigilError('No API key: pass new Vigil({ apiKey: "svc_live_…" }) or set the VIGIL_API_KEY environment variable.');
    }
    this.#options = options;
    this.#apiKey = apiKey;
    this.baseUrl = (options.baseUrl ?? environment('VIGIL_BASE_URL') ?? defaultBaseUrl).replace(/\/+$/, '');
    this.timeout = options.timeout ?? 60_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#defaultHeaders = options.defaultHeaders ?? {};
  }

  /** A copy of this client with some options changed (`defaultHeaders` are added to the current ones). */
  withOptions(options: ClientOptions): Vigil {
    const defaultHeaders = { ...this.#defaultHeaders, ...options.defaultHeaders };
    return new Vigil({ ...this.#options, apiKey: this.#apiKey, baseUrl: this.baseUrl, timeout: this.timeout, maxRetries: this.maxRetries, ...options, defaultHeaders });
  }

  /**
   * The one request path: auth, idempotency key, timeout, retries with back-off. The answer's body
   * is read inside the attempt (unless `stream`), so a failure while reading it is retried and
   * counted against the timeout too; `parse` turns it into the result when the caller wants it.
   */
  request<T>(request: ApiRequest, parse: (answer: RawAnswer) => T | Promise<T>): APIPromise<T> {
    return new APIPromise(this.#send(request), parse);
  }

  async #send(request: ApiRequest): Promise<RawAnswer> {
    const options = request.options ?? {};
    const timeout = options.timeout ?? this.timeout;
    const replayable = request.rawBody?.replayable ?? true;
    const maxRetries = replayable ? (options.maxRetries ?? this.maxRetries) : 0;
    const url = this.#url(request);
    const init = this.#init(request);
    for (let retry = 0; ; retry += 1) {
      let failure: VigilError;
      let answerHeaders: Headers | undefined;
      try {
        return await this.#attempt(url, init, timeout, options.signal, request.stream ?? false);
      } catch (error) {
        if (!(error instanceof VigilError)) throw error;
        if (error instanceof APIError) {
          if (!isRetryable(error)) throw error;
          answerHeaders = error.headers;
        }
        failure = error;
      }
      if (retry >= maxRetries) throw failure;
      await sleep(retryDelayMs(retry, answerHeaders), options.signal);
    }
  }

  async #attempt(url: string, init: RequestInit, timeout: number, signal: AbortSignal | undefined, stream: boolean): Promise<RawAnswer> {
    if (signal?.aborted) throw signal.reason;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new APITimeoutError(timeout)), timeout);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.#fetch(url, { ...init, signal: controller.signal });
      if (!response.ok) throw errorFor(response.status, await bodyOf(response), response.headers);
      if (stream) return { response, body: null };
      return readAnswer(response, await response.text());
    } catch (error) {
      if (error instanceof APIError) throw error;
      if (signal?.aborted) throw signal.reason;
      if (controller.signal.reason instanceof APITimeoutError) throw controller.signal.reason;
      throw new APIConnectionError(`Could not reach the Vigil API at ${url}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  #url(request: ApiRequest): string {
    const url = new URL(`${this.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries({ ...request.query, ...request.options?.query })) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  #init(request: ApiRequest): RequestInit & { duplex?: 'half' } {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': clientName,
      'x-vigil-client': clientName,
      ...this.#defaultHeaders,
      ...request.options?.headers,
      authorization: `Bearer ${this.#apiKey}`,
    };
    if (request.method === 'POST') headers['idempotency-key'] = request.options?.idempotencyKey ?? webCrypto().randomUUID();
    let body: BodyInit | undefined;
    if (request.rawBody) {
      body = request.rawBody.body;
      if (request.rawBody.contentType) headers['content-type'] = request.rawBody.contentType;
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    // A stream body needs duplex: 'half' in Node's fetch; other runtimes ignore the field.
    return { method: request.method, headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' as const } : {}) };
  }
}

export default Vigil;
