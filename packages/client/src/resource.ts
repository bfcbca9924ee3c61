import type { APIPromise, RawAnswer } from './api-promise.js';
import type { ApiRequest, QueryValue, RequestOptions, Vigil } from './client.js';
import { type ListEnvelope, paginate, type PagePromise } from './pagination.js';

/** Path segments are ids: escaped, so that an odd value can never reach another route. */
export const segment = (id: string): string => encodeURIComponent(id);

/** The JSON of an answer the request path has read. */
export const jsonOf = <T>(answer: RawAnswer): T => JSON.parse(answer.body ?? '') as T;

/** What every namespace shares: calls through the client's one request path, unwrapping `{data}`. */
export abstract class APIResource {
  constructor(protected readonly client: Vigil) {}

  protected requestData<T>(request: ApiRequest): APIPromise<T> {
    return this.client.request(request, (answer) => jsonOf<{ data: T }>(answer).data);
  }

  protected noContent(request: ApiRequest): APIPromise<void> {
    return this.client.request(request, () => undefined);
  }

  protected page<T>(path: string, filters: object | undefined, options: RequestOptions | undefined): PagePromise<T> {
    return paginate<T>((cursor) =>
      this.client.request({ method: 'GET', path, query: { ...(filters as Record<string, QueryValue>), cursor }, options }, (answer) =>
        jsonOf<ListEnvelope<T>>(answer),
      ),
    );
  }
}
