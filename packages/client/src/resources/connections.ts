import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Connection, Dataset } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type ConnectionCreateParams = BodyOf<Operation<'/api/v1/connections', 'post'>>;
export type ConnectionUpdateParams = BodyOf<Operation<'/api/v1/connections/{id}', 'patch'>>;
export type ConnectionListParams = FiltersOf<Operation<'/api/v1/connections', 'get'>>;
export type ConnectionImportParams = BodyOf<Operation<'/api/v1/connections/{id}/import', 'post'>>;

/** External PostgreSQL and MySQL databases to import from; passwords are never returned. */
export class Connections extends APIResource {
  list(params?: ConnectionListParams, options?: RequestOptions): PagePromise<Connection> {
    return this.page('/connections', params, options);
  }

  create(params: ConnectionCreateParams, options?: RequestOptions): APIPromise<Connection> {
    return this.requestData({ method: 'POST', path: '/connections', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Connection> {
    return this.requestData({ method: 'GET', path: `/connections/${segment(id)}`, options });
  }

  update(id: string, params: ConnectionUpdateParams, options?: RequestOptions): APIPromise<Connection> {
    return this.requestData({ method: 'PATCH', path: `/connections/${segment(id)}`, body: params, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/connections/${segment(id)}`, options });
  }

  /** Connects now; the answer shows `status` and `lastError`. */
  test(id: string, options?: RequestOptions): APIPromise<Connection> {
    return this.requestData({ method: 'POST', path: `/connections/${segment(id)}/test`, options });
  }

  /** Starts importing a table or query; the dataset is `importing` until `datasets.retrieve` shows it `ready` or `failed`. */
  import(id: string, params: ConnectionImportParams, options?: RequestOptions): APIPromise<Dataset> {
    return this.requestData({ method: 'POST', path: `/connections/${segment(id)}/import`, body: params, options });
  }
}
