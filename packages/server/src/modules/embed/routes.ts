import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listOf, single } from '../../platform/pagination.js';
import { IdParams, NoContent, operation, responses } from '../../platform/route-schemas.js';
import { CreatedEmbedToken, CreateEmbedToken, EmbedSettings, EmbedToken, EmbedTokenListQuery, UpdateEmbedSettings } from './schema.js';
import type { EmbedService } from './service.js';

/** The embed tokens and settings under /api/v1 (API keys); the embed side itself is in public-routes.ts. */
export const embedRoutes: FastifyPluginAsyncTypebox<{ embed: EmbedService }> = async (app, { embed }) => {
  const tags = ['embed'];

  app.post(
    '/embed/tokens',
    {
      schema: {
        tags,
        ...operation('createEmbedToken', 'embed.tokens.create', 'Mint a token that lets a web page show one dashboard'),
        body: CreateEmbedToken,
        response: responses({ 201: single(CreatedEmbedToken) }),
      },
    },
    async (request, reply) => reply.status(201).send({ data: await embed.createToken(request.caller.orgId, request.body) }),
  );

  app.get(
    '/embed/tokens',
    {
      schema: {
        tags,
        ...operation('listEmbedTokens', 'embed.tokens.list', 'List embed tokens (never the tokens themselves)'),
        querystring: EmbedTokenListQuery,
        response: responses({ 200: listOf(EmbedToken) }),
      },
    },
    (request) => embed.listTokens(request.caller.orgId, request.query),
  );

  app.delete(
    '/embed/tokens/:id',
    {
      schema: {
        tags,
        ...operation('deleteEmbedToken', 'embed.tokens.delete', 'Revoke an embed token (effective within a second)'),
        params: IdParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await embed.revokeToken(request.caller.orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/embed/settings',
    {
      schema: {
        tags,
        ...operation('retrieveEmbedSettings', 'embed.settings.retrieve', 'The origins allowed to embed dashboards'),
        response: responses({ 200: single(EmbedSettings) }),
      },
    },
    async (request) => ({ data: await embed.settings(request.caller.orgId) }),
  );

  app.patch(
    '/embed/settings',
    {
      schema: {
        tags,
        ...operation('updateEmbedSettings', 'embed.settings.update', 'Set the origins allowed to embed dashboards (empty: any)'),
        body: UpdateEmbedSettings,
        response: responses({ 200: single(EmbedSettings) }),
      },
    },
    async (request) => ({ data: await embed.updateSettings(request.caller.orgId, request.body) }),
  );
};
