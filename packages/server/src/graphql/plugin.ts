import websocket from '@fastify/websocket';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CommittedEvents } from '../events/committed.js';
import { type AuthOptions, authenticate } from '../platform/auth.js';
import { ApiError } from '../platform/errors.js';
import { translate } from '../platform/http-errors.js';
import type { Services } from '../services.js';
import { graphqlContext } from './context.js';
import { DocumentCache } from './documents.js';
import { sendGraphqlError } from './errors.js';
import { executableSchema, schemaSource } from './executable-schema.js';
import { GraphqlHttp } from './http.js';
import { resolvers } from './resolvers.js';
import { type SubscriptionCaps, subscriptionHandler, subscriptionResolvers } from './subscriptions.js';

export const graphqlPath = '/api/graphql';

/** A WebSocket message (a subscribe with its query and variables) longer than this closes the socket (1009). */
export const maxSocketMessageBytes = 64 * 1024;

export interface GraphqlDeps {
  services: Services;
  auth: AuthOptions;
  events: CommittedEvents;
  /** Seals the cursors GraphQL makes from an `after` id, as REST's own. */
  secretKey: string;
  subscriptionCaps: SubscriptionCaps;
}

/**
 * Errors before the GraphQL handler: Fastify's own (a body that is not JSON, too large, another
 * media type). A malformed body is 400 in GraphQL over HTTP (REST says 422); the others keep their
 * REST status. Only an unexpected failure is logged as an error.
 */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = translate(error, request);
  if (apiError.status >= 500) request.log.error({ err: error }, 'graphql request failed');
  void sendGraphqlError(reply, request, apiError, apiError.status === 422 ? 400 : apiError.status);
}

/**
 * The GraphQL API (DESIGN §3.7) on the REST API's server: the same authentication, rate-limit
 * counter and services. HTTP by http.ts; subscriptions through graphql-ws on the same path.
 */
export async function graphqlApi(app: FastifyInstance, { services, auth, events, secretKey, subscriptionCaps }: GraphqlDeps): Promise<void> {
  const schema = executableSchema({ ...resolvers, Subscription: subscriptionResolvers(events) });
  const documents = new DocumentCache(schema);

  app.get(`${graphqlPath}/schema.graphql`, { schema: { hide: true } }, (_request, reply) => {
    void reply.type('text/plain; charset=utf-8').send(schemaSource);
  });

  await app.register(async (graphql) => {
    // First, so that `request.ws` is set, by what Node itself upgrades, before authentication reads it.
    await graphql.register(websocket, { options: { maxPayload: maxSocketMessageBytes } });
    graphql.decorateRequest('caller', null as unknown as never);
    graphql.addHook('onRequest', async (request, reply) => {
      if (request.ws) return; // the socket authenticates in connection_init (subscriptions.ts)
      try {
        request.caller = await authenticate(request.headers.authorization, auth, reply);
      } catch (error) {
        if (error instanceof ApiError) return sendGraphqlError(reply, request, error);
        throw error;
      }
    });
    const http = new GraphqlHttp({ documents, context: (request) => graphqlContext(services, request.caller, secretKey) });
    const wsHandler = subscriptionHandler({ schema, documents, services, auth, secretKey, caps: subscriptionCaps, log: graphql.log });
    const hide = { hide: true }; // the OpenAPI document describes the REST API; the GraphQL API has its SDL
    const handler = (request: FastifyRequest, reply: FastifyReply) => http.handle(request, reply);
    graphql.route({ method: 'GET', url: graphqlPath, schema: hide, errorHandler: handleError, handler, wsHandler });
    graphql.route({ method: 'POST', url: graphqlPath, schema: hide, errorHandler: handleError, handler });
    graphql.route({
      method: ['PUT', 'PATCH', 'DELETE'],
      url: graphqlPath,
      schema: hide,
      handler: async (request, reply) => {
        void reply.header('allow', 'GET, POST');
        return sendGraphqlError(reply, request, new ApiError('VALIDATION_ERROR', 'Send GraphQL with POST, or queries with GET.'), 405);
      },
    });
  });
}
