import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Dashboard, DashboardData } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type DashboardCreateParams = BodyOf<Operation<'/api/v1/dashboards', 'post'>>;
export type DashboardUpdateParams = BodyOf<Operation<'/api/v1/dashboards/{id}', 'patch'>>;
export type DashboardListParams = FiltersOf<Operation<'/api/v1/dashboards', 'get'>>;
export type WidgetAddParams = BodyOf<Operation<'/api/v1/dashboards/{id}/widgets', 'post'>>;

export class Widgets extends APIResource {
  /** Appends a widget (`{title, kind, query}`), or one made from a chat answer (`{fromQueryId}`); answers the whole dashboard. */
  add(dashboardId: string, params: WidgetAddParams, options?: RequestOptions): APIPromise<Dashboard> {
    return this.requestData({ method: 'POST', path: `/dashboards/${segment(dashboardId)}/widgets`, body: params, options });
  }
}

export class Dashboards extends APIResource {
  readonly widgets = new Widgets(this.client);

  list(params?: DashboardListParams, options?: RequestOptions): PagePromise<Dashboard> {
    return this.page('/dashboards', params, options);
  }

  create(params: DashboardCreateParams, options?: RequestOptions): APIPromise<Dashboard> {
    return this.requestData({ method: 'POST', path: '/dashboards', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Dashboard> {
    return this.requestData({ method: 'GET', path: `/dashboards/${segment(id)}`, options });
  }

  /** `widgets`, when sent, replaces the list as sent, in that order. */
  update(id: string, params: DashboardUpdateParams, options?: RequestOptions): APIPromise<Dashboard> {
    return this.requestData({ method: 'PATCH', path: `/dashboards/${segment(id)}`, body: params, options });
  }

  /** Deletes the dashboard and every embed token for it. */
  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/dashboards/${segment(id)}`, options });
  }

  /** Every widget's current result; a widget that cannot be read has `error` set and no rows. */
  data(id: string, options?: RequestOptions): APIPromise<DashboardData> {
    return this.requestData({ method: 'GET', path: `/dashboards/${segment(id)}/data`, options });
  }
}
