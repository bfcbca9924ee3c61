import { recordEvent } from '../../events/outbox.js';
import type { ServiceContext } from '../../platform/context.js';
import { ApiError, found } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type Plan, planRules } from '../../platform/plans.js';
import type { Queryable } from '../../db/connect.js';
import { ApiKeyService, type CreatedApiKey } from '../api-keys/service.js';
import { checkValue } from '../../platform/validation.js';
import { Email, type User } from '../users/schema.js';
import { UserService } from '../users/service.js';
import { findOrganization, insertOrganization, type Organization, updateOrganization } from './store.js';

export interface CreatedOrganization {
  org: Organization;
  admin: User | null;
  /** The founding admin's one-time link to set a password and join. */
  inviteUrl: string | null;
  apiKey: string;
  keyId: string;
}

export type BillingNotice = 'trial_expired' | 'payment_failed';

/** Operator actions on organizations: what the `vigil` CLI does. */
export class OrganizationService {
  private readonly keys: ApiKeyService;
  private readonly users: UserService;

  constructor(private readonly ctx: ServiceContext) {
    this.keys = new ApiKeyService(ctx);
    this.users = new UserService(ctx);
  }

  async create(input: { name: string; plan: Plan; adminEmail?: string }): Promise<CreatedOrganization> {
    // The CLI's --admin-email meets the rule the API applies to an invited user's email.
    if (input.adminEmail !== undefined) checkValue(Email, input.adminEmail, 'adminEmail');
    return this.ctx.db.transaction(async (tx) => {
      const at = this.ctx.clock.now();
      const org = await insertOrganization(tx, { id: newId('organization', at.getTime()), name: input.name, plan: input.plan, at });
      const founder = input.adminEmail ? await this.users.inviteIn(tx, org.id, { email: input.adminEmail, role: 'admin' }) : null;
      const admin = founder?.user ?? null;
      if (planRules[org.plan].paid) await this.billingEvent(tx, org, 'billing.subscription_activated', null, null);
      const created: CreatedApiKey = await this.keys.createIn(tx, org.id, { createdBy: admin?.id ?? null });
      return { org, admin, inviteUrl: founder?.inviteUrl ?? null, apiKey: created.apiKey, keyId: created.key.id };
    });
  }

  async get(orgId: string): Promise<Organization> {
    return found(await findOrganization(this.ctx.db, orgId), 'organization');
  }

  /** Moving onto a paid plan activates a subscription; moving to free cancels it. */
  async setPlan(orgId: string, plan: Plan): Promise<Organization> {
    return this.ctx.db.transaction(async (tx) => {
      const before = found(await findOrganization(tx, orgId, true), 'organization');
      const previous = before.plan;
      if (previous === plan) return before;
      const org = (await updateOrganization(tx, orgId, { plan, at: this.ctx.clock.now() }))!;
      if (planRules[plan].paid) await this.billingEvent(tx, org, 'billing.subscription_activated', previous, null);
      else if (planRules[previous].paid) await this.billingEvent(tx, org, 'billing.subscription_cancelled', previous, null);
      return org;
    });
  }

  async setRateLimit(orgId: string, perMinute: number | null): Promise<Organization> {
    if (perMinute !== null && (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > 1_000_000)) {
      throw new ApiError('VALIDATION_ERROR', 'The rate limit must be a whole number of requests per minute from 1 to 1000000.');
    }
    const org = await updateOrganization(this.ctx.db, orgId, { rateLimitPerMinute: perMinute, at: this.ctx.clock.now() });
    return found(org, 'organization');
  }

  /** Notices an outside billing system reports; they change nothing but are announced to webhooks. */
  async reportBilling(orgId: string, notice: BillingNotice, reason: string | null): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      const org = found(await findOrganization(tx, orgId), 'organization');
      const event = notice === 'trial_expired' ? 'billing.trial_expired' : 'billing.payment_failed';
      await this.billingEvent(tx, org, event, null, reason);
    });
  }

  private async billingEvent(
    tx: Queryable,
    org: Organization,
    event: 'billing.subscription_activated' | 'billing.subscription_cancelled' | 'billing.trial_expired' | 'billing.payment_failed',
    previousPlan: Plan | null,
    reason: string | null,
  ): Promise<void> {
    await recordEvent(tx, this.ctx.clock, org.id, event, { orgId: org.id, plan: org.plan, previousPlan, reason });
  }
}
