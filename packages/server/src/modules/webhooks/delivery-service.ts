import { readSnapshot } from '../../db/snapshot.js';
import type { ServiceContext } from '../../platform/context.js';
import { conflict, found, invalid, notFound } from '../../platform/errors.js';
import { type Page, pageWindow, toPage } from '../../platform/pagination.js';
import { notifyDeliveriesDue } from '../../webhooks/fan-out.js';
import { findDelivery, listDeliveries, recoverFailedDeliveries, requestManualAttempt } from './delivery-store.js';
import type { DeliveryQuery } from './request-schema.js';
import type { Delivery, RecoveryStarted } from './schema.js';
import { findWebhook } from './store.js';

/** How far back `recover` reaches. */
const recoveryWindowMs = 14 * 24 * 60 * 60 * 1000;

/** A webhook's delivery history, and the two ways to send again: one delivery, or every failure since a time. */
export class DeliveryService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(orgId: string, webhookId: string, query: DeliveryQuery): Promise<Page<Delivery>> {
    await this.webhook(orgId, webhookId);
    const window = pageWindow(query, orgId, this.ctx.config.secretKey);
    const filters = { status: query.status, event: query.event };
    const now = this.ctx.clock.now();
    return toPage(await readSnapshot(this.ctx.db, (tx) => listDeliveries(tx, orgId, webhookId, filters, window, now)), window);
  }

  async get(orgId: string, webhookId: string, id: string): Promise<Delivery> {
    await this.webhook(orgId, webhookId);
    const now = this.ctx.clock.now();
    return found(await readSnapshot(this.ctx.db, (tx) => findDelivery(tx, orgId, webhookId, id, now)), 'delivery');
  }

  /** A new attempt now, whatever the delivery's state; its result is in the delivery's attempts. */
  async retry(orgId: string, webhookId: string, id: string): Promise<Delivery> {
    await this.activeWebhook(orgId, webhookId);
    if (!(await requestManualAttempt(this.ctx.db, orgId, webhookId, id, this.ctx.clock.now()))) throw notFound('delivery');
    await notifyDeliveriesDue(this.ctx.db, webhookId);
    return this.get(orgId, webhookId, id);
  }

  async recover(orgId: string, webhookId: string, sinceText: string): Promise<RecoveryStarted> {
    await this.activeWebhook(orgId, webhookId);
    const now = this.ctx.clock.now();
    const since = new Date(sinceText);
    if (since.getTime() < now.getTime() - recoveryWindowMs) throw invalid('since', 'must be within the last 14 days');
    if (since > now) throw invalid('since', 'must not be in the future');
    const deliveries = await recoverFailedDeliveries(this.ctx.db, orgId, webhookId, since, now);
    if (deliveries > 0) await notifyDeliveriesDue(this.ctx.db, webhookId);
    return { webhookId, since: since.toISOString(), deliveries };
  }

  private async webhook(orgId: string, webhookId: string) {
    return found(await findWebhook(this.ctx.db, orgId, webhookId), 'webhook');
  }

  private async activeWebhook(orgId: string, webhookId: string): Promise<void> {
    const webhook = await this.webhook(orgId, webhookId);
    if (!webhook.is_active) throw conflict('The webhook is disabled; enable it with PATCH {"isActive": true} before sending again.');
  }
}
