import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { single } from '../../platform/pagination.js';
import { responses } from '../../platform/route-schemas.js';
import { AiResponse, AskQuestion } from './schema.js';
import { AllowanceExceeded } from '../usage/service.js';
import { type ChatService, notConfigured } from './service.js';

export const chatRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
  // Before body validation: an instance without AI answers 503 whatever is sent.
  app.addHook('onRequest', async () => {
    if (!chat.configured) throw notConfigured();
  });

  app.post(
    '/chat',
    {
      schema: {
        ...operation(
          'askChat',
          'chat.ask',
          "Ask a question about a project's data",
          "The configured model answers, reading the data with read-only SQL. Each question counts against the plan's monthly AI allowance.",
        ),
        body: AskQuestion,
        response: responses(
          { 200: single(AiResponse) },
          {
            429: "The organization's requests for this minute, or the plan's AI questions or tokens for this month, are used up; Retry-After says when to try again.",
            502: 'The AI provider failed or answered with something unusable (AI_PROVIDER_ERROR).',
            503: 'No AI provider is configured on this instance (SERVICE_UNAVAILABLE).',
          },
        ),
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
