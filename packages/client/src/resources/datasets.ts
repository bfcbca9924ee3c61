import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Dataset, DatasetRow } from '../models.js';
import type { FiltersOf, Operation, QueryOf } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';
import { uploadBodyOf, type UploadSource } from '../uploads.js';

export type DatasetListParams = FiltersOf<Operation<'/api/v1/datasets', 'get'>>;
export type DatasetRowsParams = FiltersOf<Operation<'/api/v1/datasets/{id}/rows', 'get'>>;
export type DatasetUploadParams = QueryOf<Operation<'/api/v1/projects/{id}/datasets', 'post'>> & {
  /** The file's type: `text/csv` (the default), or the xlsx content type for Excel files. */
  contentType?: string;
};

export class Datasets extends APIResource {
  /** Uploads a CSV or Excel file into a project; the answer is the dataset, `ready`. */
  upload(projectId: string, file: UploadSource, params: DatasetUploadParams = {}, options?: RequestOptions): APIPromise<Dataset> {
    const { contentType, ...query } = params;
    return this.requestData({ method: 'POST', path: `/projects/${segment(projectId)}/datasets`, query, rawBody: uploadBodyOf(file, contentType), options });
  }

  list(params?: DatasetListParams, options?: RequestOptions): PagePromise<Dataset> {
    return this.page('/datasets', params, options);
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Dataset> {
    return this.requestData({ method: 'GET', path: `/datasets/${segment(id)}`, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/datasets/${segment(id)}`, options });
  }

  /** The dataset's rows in file order, keyed by column name, a page at a time. */
  rows(id: string, params?: DatasetRowsParams, options?: RequestOptions): PagePromise<DatasetRow> {
    return this.page(`/datasets/${segment(id)}/rows`, params, options);
  }
}
