import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { HistoryFilters, QueryRecord, QueryRecordWithRows } from './schema.js';
import type { HistoryService } from './service.js';

export const historyRoutes: FastifyPluginAsyncTypebox<{ history: HistoryService }> = async (app, { history }) => {
  app.get(
    '/history',
    {
      schema: {
        ...operation('listHistory', 'history.list', 'List questions asked to the AI', 'Newest first, optionally of one project.'),
        querystring: Type.Composite([HistoryFilters, PageQuery]),
        response: responses({ 200: listOf(QueryRecord) }),
      },
    },
    (request) => {
      const { limit, cursor, ...filters } = request.query;
      return history.list(request.caller.orgId, filters, { limit, cursor });
    },
  );

  app.get(
    '/history/:id',
    {
      schema: {
        ...operation('retrieveHistoryEntry', 'history.retrieve', 'Retrieve a question with its result rows'),
        params: IdParams,
        response: responses({ 200: single(QueryRecordWithRows) }),
      },
    },
    async (request) => ({ data: await history.get(request.caller.orgId, request.params.id) }),
  );

  app.delete(
    '/history/:id',
    { schema: { ...operation('deleteHistoryEntry', 'history.delete', 'Delete a history entry'), params: IdParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await history.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
