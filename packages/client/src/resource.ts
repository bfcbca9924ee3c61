import type { ApiRequest, QueryValue, RequestOptions, Vigil } from './client.js';
import { type ListEnvelope, paginate, type PagePromise } from './pagination.js';

/** Path segments are ids: escaped, so that an odd value can never reach another route. */
export const segment = (id: string): string => encodeURIComponent(id);

/** What every namespace shares: calls through the client's one request path, unwrapping `{data}`. */
export abstract class APIResource {
  constructor(protected readonly client: Vigil) {}

  protected async requestData<T>(request: ApiRequest): Promise<T> {
    return this.client.request(request, async (response) => ((await response.json()) as { data: T }).data);
  }

  protected async noContent(request: ApiRequest): Promise<void> {
    await this.client.request(request, async (response) => {
      await response.arrayBuffer();
    });
  }

  protected page<T>(path: string, filters: object | undefined, options: RequestOptions | undefined): PagePromise<T> {
    return paginate<T>((cursor) =>
      this.client.request(
        { method: 'GET', path, query: { ...(filters as Record<string, QueryValue>), cursor }, options },
        async (response) => (await response.json()) as ListEnvelope<T>,
      ),
    );
  }
}
