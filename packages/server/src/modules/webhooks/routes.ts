import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import type { DeliveryService } from './delivery-service.js';
import { CreateWebhook, DeliveryParams, DeliveryQuery, RecoverDeliveries, UpdateWebhook } from './request-schema.js';
import { Delivery, RecoveryStarted, Webhook, WebhookWithSecret } from './schema.js';
import type { WebhookService } from './service.js';

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService; deliveries: DeliveryService }> = async (
  app,
  { webhooks, deliveries },
) => {
  const tags = ['webhooks'];

  app.get('/webhooks', { schema: { tags, querystring: PageQuery, response: responses({ 200: listOf(Webhook) }) } }, (request) =>
    webhooks.list(request.caller.orgId, request.query),
  );

  app.post(
    '/webhooks',
    { schema: { tags, body: CreateWebhook, response: responses({ 201: single(WebhookWithSecret) }) } },
    async (request, reply) => reply.status(201).send({ data: await webhooks.create(request.caller.orgId, request.body) }),
  );

  app.get('/webhooks/:id', { schema: { tags, params: IdParams, response: responses({ 200: single(Webhook) }) } }, async (request) => ({
    data: await webhooks.get(request.caller.orgId, request.params.id),
  }));

  app.patch(
    '/webhooks/:id',
    { schema: { tags, params: IdParams, body: UpdateWebhook, response: responses({ 200: single(Webhook) }) } },
    async (request) => ({ data: await webhooks.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete('/webhooks/:id', { schema: { tags, params: IdParams, response: responses({ 204: NoContent }) } }, async (request, reply) => {
    await webhooks.delete(request.caller.orgId, request.params.id);
    return reply.status(204).send(null);
  });

  app.post(
    '/webhooks/:id/rotate-secret',
    { schema: { tags, params: IdParams, response: responses({ 200: single(WebhookWithSecret) }) } },
    async (request) => ({ data: await webhooks.rotateSecret(request.caller.orgId, request.params.id) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    { schema: { tags, params: IdParams, querystring: DeliveryQuery, response: responses({ 200: listOf(Delivery) }) } },
    (request) => deliveries.list(request.caller.orgId, request.params.id, request.query),
  );

  app.get(
    '/webhooks/:id/deliveries/:deliveryId',
    { schema: { tags, params: DeliveryParams, response: responses({ 200: single(Delivery) }) } },
    async (request) => ({ data: await deliveries.get(request.caller.orgId, request.params.id, request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    { schema: { tags, params: DeliveryParams, response: responses({ 202: single(Delivery) }) } },
    async (request, reply) =>
      reply.status(202).send({ data: await deliveries.retry(request.caller.orgId, request.params.id, request.params.deliveryId) }),
  );

  app.post(
    '/webhooks/:id/recover',
    { schema: { tags, params: IdParams, body: RecoverDeliveries, response: responses({ 202: single(RecoveryStarted) }) } },
    async (request, reply) =>
      reply.status(202).send({ data: await deliveries.recover(request.caller.orgId, request.params.id, request.body.since) }),
  );
};
