import type { Queryable } from '../../db/connect.js';
import { settleRider } from '../../db/rider.js';
import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, conflict, found } from '../../platform/errors.js';
import type { WithinTransaction } from '../../platform/idempotency.js';
import { newId } from '../../platform/ids.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../../platform/pagination.js';
import { findProject } from '../projects/store.js';
import { findUser } from '../users/store.js';
import { type AlertMove, canMove } from './lifecycle.js';
import type { Alert, AlertFilters, CreateAlert, OpenCounts, TimelineEntry, UpdateAlert } from './schema.js';
import {
  type AlertChanges,
  countOpenAlerts,
  deleteAlert,
  findAlert,
  insertOrRepeatAlert,
  listAlertEvents,
  listAlerts,
  listAlertsOfProjects,
  type RaisedAlert,
  resolveOpenAlert,
  updateAlert,
} from './store.js';

export type { RaisedAlert };

/** Who raised an alert, and what runs in its transaction once the result is known (an idempotent request stores its answer there). */
export interface RaiseOptions {
  actorId?: string | null;
  within?: WithinTransaction<RaisedAlert>;
}

export class AlertService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, filters: AlertFilters, page: PageQuery): Promise<Page<Alert>> {
    const window = pageWindow(page, orgId, this.ctx.config.secretKey);
    return toPage(await listAlerts(this.ctx.db, orgId, filters, window), window);
  }

  /** The first page of each project's alerts at once (GraphQL's batched loads), keyed by project id. */
  async listOfProjects(
    orgId: string,
    projectIds: readonly string[],
    filters: Omit<AlertFilters, 'projectId' | 'dedupKey'>,
    page: PageQuery,
  ): Promise<Map<string, Alert[]>> {
    const byProject = new Map<string, Alert[]>(projectIds.map((id) => [id, []]));
    for (const alert of await listAlertsOfProjects(this.ctx.db, orgId, projectIds, filters, pageWindow(page, orgId, this.ctx.config.secretKey))) {
      byProject.get(alert.projectId)?.push(alert);
    }
    return byProject;
  }

  async get(orgId: string, id: string): Promise<Alert> {
    return found(await findAlert(this.ctx.db, orgId, id), 'alert');
  }

  async create(orgId: string, input: CreateAlert, actorId: string | null = null): Promise<Alert> {
    return (await this.raise(orgId, input, { actorId })).alert;
  }

  /** Creates the alert, or counts a repeat of the project's open alert with the same dedupKey. */
  async raise(orgId: string, input: CreateAlert, { actorId = null, within }: RaiseOptions = {}): Promise<RaisedAlert> {
    return this.ctx.db.transaction(async (tx) => {
      found(await findProject(tx, orgId, input.projectId, true), 'project');
      return this.raiseIn(tx, orgId, input, actorId, within);
    });
  }

  /**
   * `raise` in the caller's transaction, whose project the caller has checked. A repeat records no
   * event: like PagerDuty's deduplicated triggers, it pages nobody and announces nothing
   * (docs/integrations.md), and the alert keeps what its first POST said.
   */
  async raiseIn(tx: Queryable, orgId: string, input: CreateAlert, actorId: string | null = null, within?: WithinTransaction<RaisedAlert>): Promise<RaisedAlert> {
    const at = this.ctx.clock.now();
    const raised = await insertOrRepeatAlert(tx, orgId, newId('alert', at.getTime()), input, at);
    // An idempotent request's key and answer go with the event's statement (a repeat has none: they go alone).
    const rider = within?.(raised);
    if (!raised.repeated) {
      await recordEvent(tx, this.ctx.clock, orgId, 'alert.created', raised.alert, actorId, rider);
      if (raised.alert.severity === 'critical') await recordEvent(tx, this.ctx.clock, orgId, 'alert.critical', raised.alert, actorId);
    }
    if (rider) await settleRider(tx, rider);
    return raised;
  }

  /** In the caller's transaction: resolves the project's open alert with this dedupKey, if any (`alert.resolved`). */
  async resolveByDedupKeyIn(tx: Queryable, orgId: string, projectId: string, dedupKey: string, actorId: string | null = null): Promise<Alert | undefined> {
    const alert = await resolveOpenAlert(tx, orgId, projectId, dedupKey, this.ctx.clock.now());
    if (alert) await recordEvent(tx, this.ctx.clock, orgId, 'alert.resolved', alert, actorId);
    return alert;
  }

  async update(orgId: string, id: string, input: UpdateAlert, actorId: string | null = null): Promise<Alert> {
    return this.ctx.db.transaction(async (tx) => {
      const before = await this.lock(tx, orgId, id);
      const alert = await updateAlert(tx, orgId, id, { ...input, updated_at: this.ctx.clock.now() });
      if (alert.severity === 'critical' && before.severity !== 'critical') {
        await recordEvent(tx, this.ctx.clock, orgId, 'alert.critical', alert, actorId);
      }
      return alert;
    });
  }

  async acknowledge(orgId: string, id: string, actorId: string | null = null): Promise<Alert> {
    const at = this.ctx.clock.now();
    return this.move(orgId, id, actorId, 'acknowledge', { status: 'acknowledged', acknowledged_at: at, updated_at: at }, 'alert.acknowledged');
  }

  async resolve(orgId: string, id: string, actorId: string | null = null): Promise<Alert> {
    const at = this.ctx.clock.now();
    return this.move(orgId, id, actorId, 'resolve', { status: 'resolved', resolved_at: at, updated_at: at }, 'alert.resolved');
  }

  async assign(orgId: string, id: string, userId: string, actorId: string | null = null): Promise<Alert> {
    return this.move(orgId, id, actorId, 'assign', { assignee_id: userId, updated_at: this.ctx.clock.now() }, 'alert.assigned', async (tx) => {
      const user = found(await findUser(tx, orgId, userId), 'user');
      if (user.status !== 'active') {
        throw new ApiError('VALIDATION_ERROR', `userId names a user who is ${user.status}; only active members can be assigned.`, [
          { field: 'userId', message: `user is ${user.status}` },
        ]);
      }
    });
  }

  async delete(orgId: string, id: string, actorId: string | null = null): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const alert = found(await deleteAlert(tx, orgId, id), 'alert');
      await recordEvent(tx, this.ctx.clock, orgId, 'alert.deleted', alert, actorId);
    });
  }

  private async move(
    orgId: string,
    id: string,
    actorId: string | null,
    move: AlertMove,
    changes: AlertChanges,
    event: 'alert.acknowledged' | 'alert.resolved' | 'alert.assigned',
    check?: (tx: Queryable) => Promise<void>,
  ): Promise<Alert> {
    return this.ctx.db.transaction(async (tx) => {
      const before = await this.lock(tx, orgId, id);
      if (!canMove(move, before.status)) throw conflict(`An alert that is ${before.status} cannot be ${pastTense[move]}.`);
      await check?.(tx);
      const alert = await updateAlert(tx, orgId, id, changes);
      await recordEvent(tx, this.ctx.clock, orgId, event, alert, actorId);
      return alert;
    });
  }

  /** What happened to the alert, oldest first, from the events it recorded (kept for the retention period). */
  async timeline(orgId: string, id: string): Promise<TimelineEntry[]> {
    found(await findAlert(this.ctx.db, orgId, id), 'alert');
    return listAlertEvents(this.ctx.db, orgId, id);
  }

  /** How many alerts are open (active or acknowledged), per severity. */
  async openCounts(orgId: string, projectId: string | undefined): Promise<OpenCounts> {
    return countOpenAlerts(this.ctx.db, orgId, projectId);
  }

  private async lock(tx: Queryable, orgId: string, id: string): Promise<Alert> {
    return found(await findAlert(tx, orgId, id, true), 'alert');
  }
}

const pastTense: Record<AlertMove, string> = { acknowledge: 'acknowledged', assign: 'assigned', resolve: 'resolved' };
