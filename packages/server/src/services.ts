import { AlertService } from './modules/alerts/service.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { OrganizationService } from './modules/organizations/service.js';
import { ProjectService } from './modules/projects/service.js';
import { UserService } from './modules/users/service.js';
import type { ServiceContext } from './platform/context.js';

/** Every service of the application, built once per process from the same context. */
export function createServices(ctx: ServiceContext) {
  return {
    organizations: new OrganizationService(ctx),
    apiKeys: new ApiKeyService(ctx),
    projects: new ProjectService(ctx),
    alerts: new AlertService(ctx),
    users: new UserService(ctx),
  };
}

export type Services = ReturnType<typeof createServices>;
