import { APIPromise } from './api-promise.js';

/** A list answer of the API: `{data, meta: {limit, hasMore, nextCursor}}`. */
export interface ListEnvelope<T> {
  data: T[];
  meta: { limit: number; hasMore: boolean; nextCursor: string | null };
}

/**
 * One page of a list, and also an async iterable over every item of every page from this one on,
 * fetching each next page only when the iteration reaches it.
 */
export class Page<T> implements AsyncIterable<T> {
  readonly data: T[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
  readonly #fetchPage: (cursor: string) => Promise<Page<T>>;

  constructor(envelope: ListEnvelope<T>, fetchPage: (cursor: string) => Promise<Page<T>>) {
    this.data = envelope.data;
    this.hasMore = envelope.meta.hasMore;
    this.nextCursor = envelope.meta.nextCursor;
    this.#fetchPage = fetchPage;
  }

  /** The next page, or null when this is the last one. */
  async nextPage(): Promise<Page<T> | null> {
    if (!this.hasMore || this.nextCursor === null) return null;
    return this.#fetchPage(this.nextCursor);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* this.data;
    for (let page = await this.nextPage(); page; page = await page.nextPage()) yield* page.data;
  }
}

/**
 * What `list()` returns: a promise of the first page that can itself be iterated with `for await`,
 * so both `await vigil.alerts.list()` and `for await (const alert of vigil.alerts.list())` work;
 * `.withResponse()` and `.asResponse()` give the first page's HTTP response.
 */
export class PagePromise<T> extends APIPromise<Page<T>> implements AsyncIterable<T> {
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this;
  }
}

/** A list call: the first page, fetched at once; each further page with the same filters and its cursor. */
export function paginate<T>(fetchEnvelope: (cursor: string | undefined) => APIPromise<ListEnvelope<T>>): PagePromise<T> {
  const pageAt = async (cursor: string | undefined): Promise<Page<T>> => new Page(await fetchEnvelope(cursor), pageAt);
  const first = fetchEnvelope(undefined);
  return new PagePromise<T>(first.asResponse().then((response) => ({ response, body: null })), async () => new Page(await first, pageAt));
}
