import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import type { DeliveryService } from './delivery-service.js';
import { CreateWebhook, DeliveryParams, DeliveryQuery, RecoverDeliveries, UpdateWebhook } from './request-schema.js';
import { Delivery, RecoveryStarted, Webhook, WebhookWithSecret } from './schema.js';
import type { WebhookService } from './service.js';

const disabled = 'The webhook is disabled; enable it with PATCH {"isActive": true} first.';

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService; deliveries: DeliveryService }> = async (
  app,
  { webhooks, deliveries },
) => {
  app.get(
    '/webhooks',
    { schema: { ...operation('listWebhooks', 'webhooks.list', 'List webhooks'), querystring: PageQuery, response: responses({ 200: listOf(Webhook) }) } },
    (request) => webhooks.list(request.caller.orgId, request.query),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        ...operation(
          'createWebhook',
          'webhooks.create',
          'Register a webhook',
          'Answers with the signing secret, which is never shown again. The url must be https and resolve to a public address.',
        ),
        body: CreateWebhook,
        response: responses({ 201: single(WebhookWithSecret) }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await webhooks.create(request.caller.orgId, request.body) }),
  );

  app.get(
    '/webhooks/:id',
    { schema: { ...operation('retrieveWebhook', 'webhooks.retrieve', 'Retrieve a webhook'), params: IdParams, response: responses({ 200: single(Webhook) }) } },
    async (request) => ({ data: await webhooks.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        ...operation('updateWebhook', 'webhooks.update', 'Update a webhook', 'isActive enables or disables it.'),
        params: IdParams,
        body: UpdateWebhook,
        response: responses({ 200: single(Webhook) }),
      },
    },
    async (request) => ({ data: await webhooks.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/webhooks/:id',
    { schema: { ...operation('deleteWebhook', 'webhooks.delete', 'Delete a webhook'), params: IdParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await webhooks.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        ...operation(
          'rotateWebhookSecret',
          'webhooks.rotateSecret',
          'Rotate the signing secret',
          'Answers with the new secret. For 24 hours webhook-signature carries signatures by the old and the new secret; X-Service-Signature uses the new one at once.',
        ),
        params: IdParams,
        response: responses({ 200: single(WebhookWithSecret) }),
      },
    },
    async (request) => ({ data: await webhooks.rotateSecret(request.caller.orgId, request.params.id) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        ...operation('listWebhookDeliveries', 'webhooks.deliveries.list', "List a webhook's deliveries", 'Newest first, each with its attempts.'),
        params: IdParams,
        querystring: DeliveryQuery,
        response: responses({ 200: listOf(Delivery) }),
      },
    },
    (request) => deliveries.list(request.caller.orgId, request.params.id, request.query),
  );

  app.get(
    '/webhooks/:id/deliveries/:deliveryId',
    {
      schema: {
        ...operation('retrieveWebhookDelivery', 'webhooks.deliveries.retrieve', 'Retrieve a delivery'),
        params: DeliveryParams,
        response: responses({ 200: single(Delivery) }),
      },
    },
    async (request) => ({ data: await deliveries.get(request.caller.orgId, request.params.id, request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        ...operation('retryWebhookDelivery', 'webhooks.deliveries.retry', 'Send a delivery again now', 'Answers 202; the attempt is made by the delivery worker.'),
        params: DeliveryParams,
        response: responses({ 202: single(Delivery) }, { 409: disabled }),
      },
    },
    async (request, reply) =>
      reply.status(202).send({ data: await deliveries.retry(request.caller.orgId, request.params.id, request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/:id/recover',
    {
      schema: {
        ...operation('recoverWebhook', 'webhooks.recover', 'Send failed deliveries again', 'Every failed delivery since a time (at most 14 days ago).'),
        params: IdParams,
        body: RecoverDeliveries,
        response: responses({ 202: single(RecoveryStarted) }, { 409: disabled }),
      },
    },
    async (request, reply) =>
      reply.status(202).send({ data: await deliveries.recover(request.caller.orgId, request.params.id, request.body.since) }),
  );
};
