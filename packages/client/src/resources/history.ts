import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { HistoryEntry, HistoryEntryWithRows } from '../models.js';
import type { FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type HistoryListParams = FiltersOf<Operation<'/api/v1/history', 'get'>>;

/** The AI questions asked and their answers. */
export class History extends APIResource {
  list(params?: HistoryListParams, options?: RequestOptions): PagePromise<HistoryEntry> {
    return this.page('/history', params, options);
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<HistoryEntryWithRows> {
    return this.requestData({ method: 'GET', path: `/history/${segment(id)}`, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/history/${segment(id)}`, options });
  }
}
