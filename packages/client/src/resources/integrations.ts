import type { RequestOptions } from '../client.js';
import type { AlertmanagerResult } from '../models.js';
import type { BodyOf, Operation } from '../operations.js';
import { APIResource } from '../resource.js';

type AlertmanagerOperation = Operation<'/api/v1/integrations/alertmanager', 'post'>;
/** Prometheus Alertmanager's webhook payload, version 4, as its webhook receiver sends it. */
export type AlertmanagerPayload = BodyOf<AlertmanagerOperation>;

export class Integrations extends APIResource {
  /**
   * Applies one Alertmanager notification to a project: each firing alert opens or repeats the
   * Vigil alert keyed by its fingerprint, each resolved one resolves it.
   */
  alertmanager(projectId: string, payload: AlertmanagerPayload, options?: RequestOptions): Promise<AlertmanagerResult> {
    return this.requestData({ method: 'POST', path: '/integrations/alertmanager', query: { projectId }, body: payload, options });
  }
}
