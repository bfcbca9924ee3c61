import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { PageQuery, listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, responses } from '../../platform/route-schemas.js';
import { ApiKey, CreateApiKey, CreatedApiKey } from './schema.js';
import type { ApiKeyService } from './service.js';

const adminsOnly = 'Admin console sessions only: an API key or a member or viewer session gets 403 FORBIDDEN.';

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeyService; keyRevoked(): void }> = async (app, { apiKeys, keyRevoked }) => {
  app.get(
    '/api-keys',
    { schema: { ...operation('listApiKeys', 'apiKeys.list', 'List API keys', adminsOnly), querystring: PageQuery, response: responses({ 200: listOf(ApiKey) }) } },
    (request) => apiKeys.list(request.caller.orgId, request.query),
  );

  app.post(
    '/api-keys',
    { schema: { ...operation('createApiKey', 'apiKeys.create', 'Create an API key', adminsOnly), body: CreateApiKey, response: responses({ 201: single(CreatedApiKey) }) } },
    async (request, reply) => {
      const created = await apiKeys.create(request.caller.orgId, { ...request.body, createdBy: request.caller.userId });
      return reply.status(201).send({ data: { ...created.key, apiKey: created.apiKey } });
    },
  );

  app.delete(
    '/api-keys/:id',
    { schema: { ...operation('deleteApiKey', 'apiKeys.delete', 'Revoke an API key', adminsOnly), params: IdParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await apiKeys.revokeOwned(request.caller.orgId, request.params.id);
      keyRevoked();
      return reply.status(204).send(null);
    },
  );
};
