import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CommittedEvents } from '../events/committed.js';
import type { Services } from '../services.js';
import { alertRoutes } from './alerts/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { chatRoutes } from './chat/routes.js';
import { connectionRoutes } from './connections/routes.js';
import { dashboardRoutes } from './dashboards/routes.js';
import { datasetRoutes } from './datasets/routes.js';
import { embedRoutes } from './embed/routes.js';
import { exportRoutes } from './exports/routes.js';
import { historyRoutes } from './history/routes.js';
import { integrationRoutes } from './integrations/routes.js';
import { projectRoutes } from './projects/routes.js';
import { usageRoutes } from './usage/routes.js';
import { userRoutes } from './users/routes.js';
import { webhookRoutes } from './webhooks/routes.js';

/** Every resource's routes under /api/v1; authentication has already run when they are reached. */
export const apiRoutes: FastifyPluginAsyncTypebox<{ services: Services; events: CommittedEvents; keyRevoked(): void }> = async (
  app,
  { services, events, keyRevoked },
) => {
  await app.register(projectRoutes, { projects: services.projects });
  await app.register(alertRoutes, { alerts: services.alerts, events });
  await app.register(userRoutes, { users: services.users });
  await app.register(webhookRoutes, { webhooks: services.webhooks, deliveries: services.deliveries });
  await app.register(chatRoutes, { chat: services.chat });
  await app.register(historyRoutes, { history: services.history });
  await app.register(usageRoutes, { usage: services.usage });
  await app.register(datasetRoutes, { datasets: services.datasets });
  await app.register(connectionRoutes, { connections: services.connections, imports: services.imports });
  await app.register(exportRoutes, { exports: services.exports });
  await app.register(apiKeyRoutes, { apiKeys: services.apiKeys, keyRevoked });
  await app.register(dashboardRoutes, { dashboards: services.dashboards });
  await app.register(embedRoutes, { embed: services.embed });
  await app.register(integrationRoutes, { integrations: services.integrations });
};
