/** A successful answer as the request path hands it over: the response, and its body when it was read. */
export interface RawAnswer {
  /** The HTTP response; its body is still unread (a copy when the client read it to parse it). */
  readonly response: Response;
  /** The body as text, read within the attempt (so a failure while reading it is retried); null when streamed. */
  readonly body: string | null;
}

/**
 * An answer whose body the client has read: the unread copy for `asResponse()` is made only when
 * asked for. `Response.clone()` before reading would tee the body stream on every call: 45–65 µs of
 * a 160 µs fetch on loopback, measured alone (BENCHMARKS.md, "client").
 */
export function readAnswer(read: Response, body: string): RawAnswer {
  let copy: Response | undefined;
  return {
    body,
    get response() {
      copy ??= unreadCopy(read, body);
      return copy;
    },
  };
}

const statusesWithoutBody = new Set([204, 205]);

function unreadCopy(read: Response, body: string): Response {
  const copy = new Response(statusesWithoutBody.has(read.status) ? null : body, { status: read.status, statusText: read.statusText, headers: read.headers });
  // A constructed Response has no URL; the copy keeps the one it was fetched from, as clone() would.
  Object.defineProperties(copy, { url: { value: read.url }, redirected: { value: read.redirected } });
  return copy;
}

/**
 * What every method returns: a promise of the result that also gives the raw HTTP response, as in
 * openai-node. The request is sent at once; the result is parsed only when the promise is awaited.
 */
export class APIPromise<T> extends Promise<T> {
  #answer: Promise<RawAnswer>;
  #parse: (answer: RawAnswer) => T | Promise<T>;
  #parsed: Promise<T> | undefined;

  constructor(answer: Promise<RawAnswer>, parse: (answer: RawAnswer) => T | Promise<T>) {
    // The value lives in #parsed; this resolution only satisfies Promise's constructor.
    super((resolve) => resolve(null as T));
    this.#answer = answer;
    this.#parse = parse;
  }

  static override get [Symbol.species]() {
    return Promise;
  }

  /** The HTTP response with its body unread: status, headers (`x-request-id`, rate limits), and the body to read yourself. */
  asResponse(): Promise<Response> {
    return this.#answer.then((answer) => answer.response);
  }

  /** The parsed result and the HTTP response it came from. */
  async withResponse(): Promise<{ data: T; response: Response }> {
    const [data, response] = await Promise.all([this.#result(), this.asResponse()]);
    return { data, response };
  }

  #result(): Promise<T> {
    this.#parsed ??= this.#answer.then((answer) => this.#parse(answer));
    return this.#parsed;
  }

  // The rejection handlers take `any`, as Promise's own do: `.catch((error: NotFoundError) => …)` must keep compiling.
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    onrejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result().then(onfulfilled, onrejected);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override catch<R = never>(onrejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#result().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result().finally(onfinally);
  }
}
