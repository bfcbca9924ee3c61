import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, operation, responses } from '../../platform/route-schemas.js';
import { AddWidget, CreateDashboard, Dashboard, DashboardData, DashboardListQuery, UpdateDashboard } from './schema.js';
import type { DashboardService } from './service.js';

export const dashboardRoutes: FastifyPluginAsyncTypebox<{ dashboards: DashboardService }> = async (app, { dashboards }) => {
  const tags = ['dashboards'];

  app.get(
    '/dashboards',
    {
      schema: {
        tags,
        ...operation('listDashboards', 'dashboards.list', 'List dashboards, newest first'),
        querystring: DashboardListQuery,
        response: responses({ 200: listOf(Dashboard) }),
      },
    },
    (request) => dashboards.list(request.caller.orgId, request.query),
  );

  app.post(
    '/dashboards',
    {
      schema: {
        tags,
        ...operation('createDashboard', 'dashboards.create', 'Create a dashboard in a project'),
        body: CreateDashboard,
        response: responses({ 201: single(Dashboard) }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await dashboards.create(request.caller.orgId, request.body) }),
  );

  app.get(
    '/dashboards/:id',
    {
      schema: {
        tags,
        ...operation('retrieveDashboard', 'dashboards.retrieve', 'Retrieve a dashboard with its widgets'),
        params: IdParams,
        response: responses({ 200: single(Dashboard) }),
      },
    },
    async (request) => ({ data: await dashboards.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/dashboards/:id',
    {
      schema: {
        tags,
        ...operation('updateDashboard', 'dashboards.update', 'Rename a dashboard or replace its widgets'),
        params: IdParams,
        body: UpdateDashboard,
        response: responses({ 200: single(Dashboard) }),
      },
    },
    async (request) => ({ data: await dashboards.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/dashboards/:id',
    {
      schema: {
        tags,
        ...operation('deleteDashboard', 'dashboards.delete', 'Delete a dashboard and its embed tokens'),
        params: IdParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await dashboards.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/dashboards/:id/data',
    {
      schema: {
        tags,
        ...operation('retrieveDashboardData', 'dashboards.data', "Every widget's current result"),
        params: IdParams,
        response: responses({ 200: single(DashboardData) }),
      },
    },
    async (request) => ({ data: await dashboards.data(request.caller.orgId, request.params.id) }),
  );

  app.post(
    '/dashboards/:id/widgets',
    {
      schema: {
        tags,
        ...operation('addDashboardWidget', 'dashboards.widgets.add', "Append a widget, or make one from a chat answer's SQL"),
        params: IdParams,
        body: AddWidget,
        response: responses({ 201: single(Dashboard) }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await dashboards.addWidget(request.caller.orgId, request.params.id, request.body) }),
  );
};
