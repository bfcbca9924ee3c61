import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { single } from '../../platform/pagination.js';
import { responses } from '../../platform/route-schemas.js';
import { Usage } from './schema.js';
import type { UsageService } from './service.js';

export const usageRoutes: FastifyPluginAsyncTypebox<{ usage: UsageService }> = async (app, { usage }) => {
  app.get(
    '/usage',
    {
      schema: {
        ...operation('retrieveUsage', 'usage.retrieve', "Retrieve this month's usage and the plan's limits"),
        response: responses({ 200: single(Usage) }),
      },
    },
    async (request) => ({ data: await usage.current(request.caller.orgId) }),
  );
};
