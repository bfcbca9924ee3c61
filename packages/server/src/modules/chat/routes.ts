import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { operation } from '../../openapi/operation.js';
import { single } from '../../platform/pagination.js';
import { responses } from '../../platform/route-schemas.js';
import { AiResponse, AskQuestion } from './schema.js';
import type { ChatService } from './service.js';

export const chatRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
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
            503: 'No AI provider is configured on this instance, or every connection for project SQL stayed busy (SERVICE_UNAVAILABLE, with Retry-After).',
          },
        ),
      },
    },
    async (request) => ({
      data: await chat.ask({ orgId: request.caller.orgId, apiKeyId: request.caller.keyId, userId: null }, request.body),
    }),
  );
};
