import type { ServiceContext } from '../../platform/context.js';
import { found } from '../../platform/errors.js';
import type { AlertService } from '../alerts/service.js';
import { findProject } from '../projects/store.js';
import { alertFromAlertmanager } from './alertmanager-alert.js';
import type { AlertmanagerAlert, AlertmanagerPayload, AlertmanagerResult } from './schema.js';

/** Alerts sent by other monitoring systems, applied through the alert service's own rules. */
export class IntegrationService {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly alerts: AlertService,
  ) {}

  /**
   * One Alertmanager notification in one transaction: a firing alert is raised with its
   * fingerprint as dedupKey (created, or a repeat of the open one), a resolved one resolves the
   * project's open alert with that key. A resolved alert with no open alert (never seen, or already
   * resolved) changes nothing, so a notification sent twice is harmless.
   */
  async receiveAlertmanager(orgId: string, projectId: string, payload: AlertmanagerPayload): Promise<AlertmanagerResult> {
    return this.ctx.db.transaction(async (tx) => {
      found(await findProject(tx, orgId, projectId, true), 'project');
      const result: AlertmanagerResult = { created: 0, repeated: 0, resolved: 0 };
      for (const alert of inLockOrder(payload.alerts)) {
        if (alert.status === 'firing') {
          const { repeated } = await this.alerts.raiseIn(tx, orgId, alertFromAlertmanager(projectId, alert));
          result[repeated ? 'repeated' : 'created'] += 1;
        } else if (await this.alerts.resolveByDedupKeyIn(tx, orgId, projectId, alert.fingerprint)) {
          result.resolved += 1;
        }
      }
      return result;
    });
  }
}

/**
 * The alerts by fingerprint (a stable sort: one fingerprint's entries keep their order). Each alert
 * locks its row until the transaction ends, so two notifications naming the same alerts in other
 * orders (an Alertmanager pair, a retry crossing a repeat) would otherwise deadlock each other.
 */
function inLockOrder(alerts: readonly AlertmanagerAlert[]): AlertmanagerAlert[] {
  return [...alerts].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
}
