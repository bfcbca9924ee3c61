import { AlertService } from './modules/alerts/service.js';
import { ApiKeyService } from './modules/api-keys/service.js';
import { ChatService } from './modules/chat/service.js';
import { ImportService } from './modules/connections/imports.js';
import { ConnectionService } from './modules/connections/service.js';
import { DashboardService } from './modules/dashboards/service.js';
import { DatasetService } from './modules/datasets/service.js';
import { EmbedService } from './modules/embed/service.js';
import { ExportService } from './modules/exports/service.js';
import { HistoryService } from './modules/history/service.js';
import { IntegrationService } from './modules/integrations/service.js';
import { OrganizationService } from './modules/organizations/service.js';
import { ProjectService } from './modules/projects/service.js';
import { SessionService } from './modules/sessions/service.js';
import { UsageService } from './modules/usage/service.js';
import { UserService } from './modules/users/service.js';
import { DeliveryService } from './modules/webhooks/delivery-service.js';
import { WebhookService } from './modules/webhooks/service.js';
import type { ServiceContext } from './platform/context.js';
import { RetentionSweeper } from './retention.js';

/** Every service of the application, built once per process from the same context. */
export function createServices(ctx: ServiceContext) {
  const usage = new UsageService(ctx);
  const datasets = new DatasetService(ctx);
  const connections = new ConnectionService(ctx);
  const chat = new ChatService(ctx, usage);
  const dashboards = new DashboardService(ctx, chat.readers);
  const users = new UserService(ctx);
  const exports = new ExportService(ctx);
  const alerts = new AlertService(ctx);
  return {
    organizations: new OrganizationService(ctx),
    apiKeys: new ApiKeyService(ctx),
    projects: new ProjectService(ctx),
    alerts,
    integrations: new IntegrationService(ctx, alerts),
    users,
    sessions: new SessionService(ctx, users),
    webhooks: new WebhookService(ctx),
    deliveries: new DeliveryService(ctx),
    usage,
    history: new HistoryService(ctx),
    chat,
    datasets,
    connections,
    imports: new ImportService(ctx, connections, datasets),
    exports,
    dashboards,
    embed: new EmbedService(ctx, dashboards),
    retention: new RetentionSweeper(ctx, exports),
  };
}

export type Services = ReturnType<typeof createServices>;
