import type { APIPromise } from '../api-promise.js';
import type { RequestOptions } from '../client.js';
import type { Usage as UsageReport } from '../models.js';
import { APIResource } from '../resource.js';

export class Usage extends APIResource {
  /** The organization's plan, limits and what it has used this month. */
  retrieve(options?: RequestOptions): APIPromise<UsageReport> {
    return this.requestData({ method: 'GET', path: '/usage', options });
  }
}
