import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Export } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type ExportCreateParams = BodyOf<Operation<'/api/v1/exports', 'post'>>;
export type ExportListParams = FiltersOf<Operation<'/api/v1/exports', 'get'>>;

export class Exports extends APIResource {
  list(params?: ExportListParams, options?: RequestOptions): PagePromise<Export> {
    return this.page('/exports', params, options);
  }

  /** Starts an export; it is `pending` until `retrieve` shows it `completed` (or `failed`). */
  create(params: ExportCreateParams, options?: RequestOptions): APIPromise<Export> {
    return this.requestData({ method: 'POST', path: '/exports', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Export> {
    return this.requestData({ method: 'GET', path: `/exports/${segment(id)}`, options });
  }

  /** The file of a completed export, as a stream of bytes (never held in memory by the client). */
  download(id: string, options?: RequestOptions): APIPromise<ReadableStream<Uint8Array>> {
    return this.client.request({ method: 'GET', path: `/exports/${segment(id)}/download`, stream: true, options }, ({ response }) => response.body ?? new Blob([]).stream());
  }
}
