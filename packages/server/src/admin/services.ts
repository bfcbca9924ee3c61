import { ApiKeyService } from '../modules/api-keys/service.js';
import { OrganizationService } from '../modules/organizations/service.js';
import { SessionService } from '../modules/sessions/service.js';
import { UserService } from '../modules/users/service.js';
import type { ServiceContext } from '../platform/context.js';

/**
 * The services the admin commands use (commands.ts). The CLI, running a command itself, builds only
 * these: loading every service's modules (services.ts: the AI SDK, spreadsheet and MySQL drivers, …)
 * would take seconds of its start.
 */
export function createAdminServices(ctx: ServiceContext) {
  return { organizations: new OrganizationService(ctx), apiKeys: new ApiKeyService(ctx), sessions: new SessionService(ctx, new UserService(ctx)) };
}

export type AdminServices = ReturnType<typeof createAdminServices>;
