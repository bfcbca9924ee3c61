import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { Alert, AlertFilters, AssignAlert, CreateAlert, UpdateAlert } from './schema.js';
import type { AlertService } from './service.js';

const AlertListQuery = Type.Composite([PageQuery, AlertFilters]);
const oneAlert = responses({ 200: single(Alert) });
const moved = responses({ 200: single(Alert) }, { 409: 'The alert is in a status this move cannot start from.' });

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertService }> = async (app, { alerts }) => {
  app.get(
    '/alerts',
    {
      schema: {
        ...operation('listAlerts', 'alerts.list', 'List alerts', 'Newest first, optionally filtered by project, status, severity and dedupKey.'),
        querystring: AlertListQuery,
        response: responses({ 200: listOf(Alert) }),
      },
    },
    (request) => {
      const { limit, cursor, ...filters } = request.query;
      return alerts.list(request.caller.orgId, filters, { limit, cursor });
    },
  );

  app.post(
    '/alerts',
    {
      schema: {
        ...operation(
          'createAlert',
          'alerts.create',
          'Create an alert',
          'A critical alert also sends alert.critical. With a dedupKey that an active or acknowledged alert of the project already has, ' +
            'nothing is created: that alert is answered with 200, its occurrences incremented and lastSeenAt set, and no event is sent.',
        ),
        body: CreateAlert,
        response: responses({ 200: single(Alert, 'A repeat: the open alert with this dedupKey, counted once more.'), 201: single(Alert, 'The new alert.') }),
      },
    },
    async (request, reply) => {
      const { alert, repeated } = await alerts.raise(request.caller.orgId, request.body);
      return reply.status(repeated ? 200 : 201).send({ data: alert });
    },
  );

  app.get(
    '/alerts/:id',
    { schema: { ...operation('retrieveAlert', 'alerts.retrieve', 'Retrieve an alert'), params: IdParams, response: oneAlert } },
    async (request) => ({ data: await alerts.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/alerts/:id',
    { schema: { ...operation('updateAlert', 'alerts.update', 'Update an alert'), params: IdParams, body: UpdateAlert, response: oneAlert } },
    async (request) => ({ data: await alerts.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/alerts/:id',
    { schema: { ...operation('deleteAlert', 'alerts.delete', 'Delete an alert'), params: IdParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await alerts.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/alerts/:id/acknowledge',
    { schema: { ...operation('acknowledgeAlert', 'alerts.acknowledge', 'Acknowledge an active alert'), params: IdParams, response: moved } },
    async (request) => ({ data: await alerts.acknowledge(request.caller.orgId, request.params.id) }),
  );

  app.post(
    '/alerts/:id/resolve',
    { schema: { ...operation('resolveAlert', 'alerts.resolve', 'Resolve an active or acknowledged alert'), params: IdParams, response: moved } },
    async (request) => ({ data: await alerts.resolve(request.caller.orgId, request.params.id) }),
  );

  app.post(
    '/alerts/:id/assign',
    {
      schema: {
        ...operation('assignAlert', 'alerts.assign', 'Assign an active or acknowledged alert to a user', 'The user must be an active member.'),
        params: IdParams,
        body: AssignAlert,
        response: moved,
      },
    },
    async (request) => ({ data: await alerts.assign(request.caller.orgId, request.params.id, request.body.userId) }),
  );
};
