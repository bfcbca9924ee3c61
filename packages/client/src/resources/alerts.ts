import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Alert, AlertOpenCounts, AlertTimelineEntry } from '../models.js';
import type { BodyOf, FiltersOf, Operation } from '../operations.js';
import type { PagePromise } from '../pagination.js';
import { APIResource, segment } from '../resource.js';

export type AlertCreateParams = BodyOf<Operation<'/api/v1/alerts', 'post'>>;
export type AlertUpdateParams = BodyOf<Operation<'/api/v1/alerts/{id}', 'patch'>>;
export type AlertListParams = FiltersOf<Operation<'/api/v1/alerts', 'get'>>;

export class Alerts extends APIResource {
  list(params?: AlertListParams, options?: RequestOptions): PagePromise<Alert> {
    return this.page('/alerts', params, options);
  }

  create(params: AlertCreateParams, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'POST', path: '/alerts', body: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'GET', path: `/alerts/${segment(id)}`, options });
  }

  update(id: string, params: AlertUpdateParams, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'PATCH', path: `/alerts/${segment(id)}`, body: params, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<void> {
    return this.noContent({ method: 'DELETE', path: `/alerts/${segment(id)}`, options });
  }

  acknowledge(id: string, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'POST', path: `/alerts/${segment(id)}/acknowledge`, options });
  }

  /** Assigns the alert to an active user of the organization. */
  assign(id: string, userId: string, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'POST', path: `/alerts/${segment(id)}/assign`, body: { userId }, options });
  }

  resolve(id: string, options?: RequestOptions): APIPromise<Alert> {
    return this.requestData({ method: 'POST', path: `/alerts/${segment(id)}/resolve`, options });
  }

  /** What happened to the alert, oldest first: each recorded event with when and who. */
  timeline(id: string, options?: RequestOptions): APIPromise<AlertTimelineEntry[]> {
    return this.requestData({ method: 'GET', path: `/alerts/${segment(id)}/timeline`, options });
  }

  /** Open alerts (active or acknowledged) per severity, optionally of one project. */
  openCounts(params?: { projectId?: string }, options?: RequestOptions): APIPromise<AlertOpenCounts> {
    return this.requestData({ method: 'GET', path: '/alerts/open-counts', query: params, options });
  }
}
