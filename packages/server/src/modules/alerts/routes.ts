import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { Alert, AlertFilters, AssignAlert, CreateAlert, UpdateAlert } from './schema.js';
import type { AlertService } from './service.js';

const AlertListQuery = Type.Composite([PageQuery, AlertFilters]);
const oneAlert = responses({ 200: single(Alert) });

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertService }> = async (app, { alerts }) => {
  const tags = ['alerts'];

  app.get('/alerts', { schema: { tags, querystring: AlertListQuery, response: responses({ 200: listOf(Alert) }) } }, (request) => {
    const { limit, cursor, ...filters } = request.query;
    return alerts.list(request.caller.orgId, filters, { limit, cursor });
  });

  app.post('/alerts', { schema: { tags, body: CreateAlert, response: responses({ 201: single(Alert) }) } }, async (request, reply) =>
    reply.status(201).send({ data: await alerts.create(request.caller.orgId, request.body) }),
  );

  app.get('/alerts/:id', { schema: { tags, params: IdParams, response: oneAlert } }, async (request) => ({
    data: await alerts.get(request.caller.orgId, request.params.id),
  }));

  app.patch('/alerts/:id', { schema: { tags, params: IdParams, body: UpdateAlert, response: oneAlert } }, async (request) => ({
    data: await alerts.update(request.caller.orgId, request.params.id, request.body),
  }));

  app.delete('/alerts/:id', { schema: { tags, params: IdParams, response: responses({ 204: NoContent }) } }, async (request, reply) => {
    await alerts.delete(request.caller.orgId, request.params.id);
    return reply.status(204).send(null);
  });

  app.post('/alerts/:id/acknowledge', { schema: { tags, params: IdParams, response: oneAlert } }, async (request) => ({
    data: await alerts.acknowledge(request.caller.orgId, request.params.id),
  }));

  app.post('/alerts/:id/resolve', { schema: { tags, params: IdParams, response: oneAlert } }, async (request) => ({
    data: await alerts.resolve(request.caller.orgId, request.params.id),
  }));

  app.post('/alerts/:id/assign', { schema: { tags, params: IdParams, body: AssignAlert, response: oneAlert } }, async (request) => ({
    data: await alerts.assign(request.caller.orgId, request.params.id, request.body.userId),
  }));
};
