import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { single } from '../../platform/pagination.js';
import { responses } from '../../platform/route-schemas.js';
import { AlertmanagerPayload, AlertmanagerQuery, AlertmanagerResult, maxAlertsPerPayload } from './schema.js';
import type { IntegrationService } from './service.js';

export const integrationRoutes: FastifyPluginAsyncTypebox<{ integrations: IntegrationService }> = async (app, { integrations }) => {
  app.post(
    '/integrations/alertmanager',
    {
      schema: {
        ...operation(
          'receiveAlertmanagerWebhook',
          'integrations.alertmanager',
          "Receive Prometheus Alertmanager's webhook",
          `Point an Alertmanager webhook receiver here, with the API key in http_config.authorization (docs/integrations.md). ` +
            `Each firing alert becomes a Vigil alert whose dedupKey is its fingerprint, or counts a repeat of the open one; ` +
            `each resolved alert resolves it. At most ${maxAlertsPerPayload} alerts, applied in one transaction: all or none.`,
        ),
        querystring: AlertmanagerQuery,
        body: AlertmanagerPayload,
        response: responses({ 200: single(AlertmanagerResult, 'What the notification did, counted per alert.') }),
      },
    },
    async (request) => ({
      data: await integrations.receiveAlertmanager(request.caller.orgId, request.query.projectId, request.body),
    }),
  );
};
