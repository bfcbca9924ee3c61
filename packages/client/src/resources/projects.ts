import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Project } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type ProjectCreateParams = BodyOf<Operation<'/api/v1/projects', 'post'>>;
export type ProjectUpdateParams = BodyOf<Operation<'/api/v1/projects/{id}', 'patch'>>;
export type ProjectListParams = FiltersOf<Operation<'/api/v1/projects', 'get'>>;

export class Projects extends APIResource {
  list(params?: ProjectListParams, options?: RequestOptions): PagePromise<Project> {
    return this.page('/projects', params, options);
  }

  create(params: ProjectCreateParams, options?: RequestOptions): APIPromise<Project> {
    return this.requestData({ method: 'POST', path: '/projects', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Project> {
    return this.requestData({ method: 'GET', path: `/projects/${segment(id)}`, options });
  }

  update(id: string, params: ProjectUpdateParams, options?: RequestOptions): APIPromise<Project> {
    return this.requestData({ method: 'PATCH', path: `/projects/${segment(id)}`, body: params, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/projects/${segment(id)}`, options });
  }
}
