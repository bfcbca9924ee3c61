import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { single } from '../../platform/pagination.js';
import { responses } from '../../platform/route-schemas.js';
import { AiResponse, AskQuestion } from './schema.js';
import { AllowanceExceeded } from '../usage/service.js';
import type { ChatService } from './service.js';

export const chatRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
  app.post(
    '/chat',
    {
      schema: {
        tags: ['chat'],
        description: "Asks a question about a project's data; the answer is computed by the configured model with read-only SQL.",
        body: AskQuestion,
        response: responses({ 200: single(AiResponse) }),
      },
    },
    async (request, reply) => {
      try {
        return { data: await chat.ask({ orgId: request.caller.orgId, apiKeyId: request.caller.keyId, userId: null }, request.body) };
      } catch (error) {
        if (error instanceof AllowanceExceeded) reply.header('Retry-After', error.retryAfter);
        throw error;
      }
    },
  );
};
