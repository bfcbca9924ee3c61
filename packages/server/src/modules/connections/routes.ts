import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { Dataset } from '../datasets/schema.js';
import type { ImportService } from './imports.js';
import { Connection, CreateConnection, ImportRequest, UpdateConnection } from './schema.js';
import type { ConnectionService } from './service.js';

const oneConnection = responses({ 200: single(Connection) });

export const connectionRoutes: FastifyPluginAsyncTypebox<{ connections: ConnectionService; imports: ImportService }> = async (
  app,
  { connections, imports },
) => {
  app.get(
    '/connections',
    {
      schema: {
        ...operation('listConnections', 'connections.list', 'List database connections'),
        querystring: PageQuery,
        response: responses({ 200: listOf(Connection) }),
      },
    },
    (request) => connections.list(request.caller.orgId, request.query),
  );

  app.post(
    '/connections',
    {
      schema: {
        ...operation('createConnection', 'connections.create', 'Add a database connection', 'The password is stored encrypted and never returned.'),
        body: CreateConnection,
        response: responses({ 201: single(Connection) }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await connections.create(request.caller.orgId, request.body) }),
  );

  app.get(
    '/connections/:id',
    { schema: { ...operation('retrieveConnection', 'connections.retrieve', 'Retrieve a connection'), params: IdParams, response: oneConnection } },
    async (request) => ({ data: await connections.get(request.caller.orgId, request.params.id) }),
  );

  app.patch(
    '/connections/:id',
    {
      schema: {
        ...operation('updateConnection', 'connections.update', 'Update a connection'),
        params: IdParams,
        body: UpdateConnection,
        response: oneConnection,
      },
    },
    async (request) => ({ data: await connections.update(request.caller.orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/connections/:id',
    { schema: { ...operation('deleteConnection', 'connections.delete', 'Delete a connection'), params: IdParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await connections.delete(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/connections/:id/test',
    {
      schema: {
        ...operation('testConnection', 'connections.test', 'Test a connection', 'Connects now and answers with the connection, its status updated.'),
        params: IdParams,
        response: oneConnection,
      },
    },
    async (request) => ({ data: await connections.test(request.caller.orgId, request.params.id) }),
  );

  app.post(
    '/connections/:id/import',
    {
      schema: {
        ...operation(
          'importFromConnection',
          'connections.import',
          'Import a table or a SELECT into a project dataset',
          'Answers 202 with the dataset "importing"; GET /datasets/{id} shows it ready or failed (with error).',
        ),
        params: IdParams,
        body: ImportRequest,
        response: responses({ 202: single(Dataset) }, { 409: 'The dataset to replace (datasetId) is importing already.' }),
      },
    },
    async (request, reply) => reply.status(202).send({ data: await imports.request(request.caller.orgId, request.params.id, request.body) }),
  );
};
