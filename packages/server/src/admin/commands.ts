import type { Db } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { ApiError } from '../platform/errors.js';
import type { Plan } from '../platform/plans.js';
import { listKeysOfOrganization } from '../modules/api-keys/store.js';
import { listAllOrganizations } from '../modules/organizations/store.js';
import type { AdminServices } from './services.js';

/** Everything the `vigil` CLI can ask of a database, whether it runs it itself or hands it to a server. */
export type AdminCommand =
  | { kind: 'migrate' }
  | { kind: 'org.create'; name: string; plan: Plan; adminEmail?: string }
  | { kind: 'org.set-plan'; orgId: string; plan: Plan }
  | { kind: 'org.set-rate-limit'; orgId: string; perMinute: number | null }
  | { kind: 'key.create'; orgId: string; name?: string; expiresInMs?: number }
  | { kind: 'org.list' }
  | { kind: 'key.list'; orgId: string }
  | { kind: 'key.revoke'; keyId: string }
  | { kind: 'billing.trial-expired'; orgId: string }
  | { kind: 'billing.payment-failed'; orgId: string; reason?: string }
  | { kind: 'user.reset-link'; email: string; orgId?: string };

export type AdminResult = Record<string, unknown>;

export interface AdminTarget {
  db: Db;
  services: AdminServices;
  /** Called after anything that changes what a key grants, so this process forgets its cached grants. */
  grantsChanged(): void;
}

export async function runAdminCommand(target: AdminTarget, command: AdminCommand): Promise<AdminResult> {
  const { services } = target;
  switch (command.kind) {
    case 'migrate':
      return { applied: await migrate(target.db) };
    case 'org.create': {
      const created = await services.organizations.create(command);
      const { id, name, plan } = created.org;
      return {
        org: { id, name, plan },
        apiKey: created.apiKey,
        keyId: created.keyId,
        adminUserId: created.admin?.id ?? null,
        inviteUrl: created.inviteUrl,
      };
    }
    case 'org.set-plan': {
      const org = await services.organizations.setPlan(command.orgId, command.plan);
      target.grantsChanged();
      return { org: { id: org.id, name: org.name, plan: org.plan } };
    }
    case 'org.set-rate-limit': {
      const org = await services.organizations.setRateLimit(command.orgId, command.perMinute);
      target.grantsChanged();
      return { org: { id: org.id, name: org.name, plan: org.plan, rateLimitPerMinute: org.rateLimitPerMinute } };
    }
    case 'key.create': {
      await services.organizations.get(command.orgId);
      const expiresAt = command.expiresInMs === undefined ? null : new Date(Date.now() + command.expiresInMs);
      const created = await services.apiKeys.create(command.orgId, { name: command.name, expiresAt });
      return { id: created.key.id, apiKey: created.apiKey, expiresAt: created.key.expiresAt };
    }
    case 'org.list':
      return { data: await listAllOrganizations(target.db) };
    case 'key.list': {
      await services.organizations.get(command.orgId);
      return { data: await listKeysOfOrganization(target.db, command.orgId) };
    }
    case 'key.revoke': {
      const key = await services.apiKeys.revoke(command.keyId);
      target.grantsChanged();
      return { id: key.id, revokedAt: key.revokedAt };
    }
    case 'billing.trial-expired':
      await services.organizations.reportBilling(command.orgId, 'trial_expired', null);
      return { orgId: command.orgId, event: 'billing.trial_expired' };
    case 'billing.payment-failed':
      await services.organizations.reportBilling(command.orgId, 'payment_failed', command.reason ?? null);
      return { orgId: command.orgId, event: 'billing.payment_failed' };
    case 'user.reset-link': {
      const link = await services.sessions.resetLink(command.email, command.orgId);
      return { userId: link.userId, orgId: link.orgId, url: link.url };
    }
  }
}

export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
