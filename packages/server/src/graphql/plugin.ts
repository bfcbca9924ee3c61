import websocket from '@fastify/websocket';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import mercurius, { type MercuriusOptions } from 'mercurius';
import type { CommittedEvents } from '../events/committed.js';
import { type AuthOptions, authenticate } from '../platform/auth.js';
import { ApiError } from '../platform/errors.js';
import { translate } from '../platform/http-errors.js';
import type { Services } from '../services.js';
import { graphqlContext } from './context.js';
import { errorFormatter, formatErrors, sendGraphqlError } from './errors.js';
import { executableSchema, schemaSource } from './executable-schema.js';
import { limits, overLimit, tooComplex } from './limits.js';
import { resolvers } from './resolvers.js';
import { subscriptionHandler, subscriptionResolvers } from './subscriptions.js';

export const graphqlPath = '/api/graphql';

export interface GraphqlDeps {
  services: Services;
  auth: AuthOptions;
  events: CommittedEvents;
  /** Seals the cursors GraphQL makes from an `after` id, as REST's own. */
  secretKey: string;
}

const isUpgrade = (request: FastifyRequest) => request.headers.upgrade?.toLowerCase() === 'websocket';

/** Query size and batch caps, checked on the raw request before anything is parsed as GraphQL. */
function oversized(request: FastifyRequest): string | undefined {
  const body = request.body;
  const operations = Array.isArray(body) ? body : [request.method === 'GET' ? request.query : body];
  if (operations.length > limits.batch) return `A batch may hold at most ${limits.batch} operations; this one has ${operations.length}.`;
  for (const operation of operations) {
    const query = (operation as { query?: unknown } | null)?.query;
    if (typeof query === 'string' && query.length > limits.querySize) return `The query is longer than ${limits.querySize} characters.`;
  }
  return undefined;
}

/** Errors mercurius could not put in a GraphQL result: Fastify's own (body too large, bad JSON) keep their REST status. */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const fromGraphql = error.name === 'GraphQLError' || error.code?.startsWith('MER_ERR');
  if (!fromGraphql) {
    const apiError = translate(error, request);
    if (apiError.status >= 500) request.log.error({ err: error }, 'graphql request failed');
    void sendGraphqlError(reply, request, apiError);
    return;
  }
  const status = error.code === 'MER_ERR_METHOD_NOT_ALLOWED' ? 405 : 200;
  void reply.code(status).send({ data: null, errors: formatErrors([error], request.log) });
}

/**
 * The GraphQL API (DESIGN §3.7) on the REST API's server: the same authentication, rate-limit
 * counter and services. HTTP through mercurius; subscriptions through graphql-ws on the same path.
 */
export async function graphqlApi(app: FastifyInstance, { services, auth, events, secretKey }: GraphqlDeps): Promise<void> {
  const schema = executableSchema({ ...resolvers, Subscription: subscriptionResolvers(events) });
  // The one SDL file, served as committed (src/graphql/schema.graphql): there is no second copy to keep equal.
  app.get(`${graphqlPath}/schema.graphql`, { schema: { hide: true } }, (_request, reply) => {
    void reply.type('text/plain; charset=utf-8').send(schemaSource);
  });

  await app.register(async (graphql) => {
    graphql.decorateRequest('caller', null as unknown as never);
    graphql.addHook('onRequest', async (request, reply) => {
      if (isUpgrade(request)) return; // the socket authenticates in connection_init (subscriptions.ts)
      try {
        request.caller = await authenticate(request.headers.authorization, auth, reply);
      } catch (error) {
        if (error instanceof ApiError) return sendGraphqlError(reply, request, error);
        throw error;
      }
    });
    graphql.addHook('preHandler', async (request, reply) => {
      if (isUpgrade(request)) return;
      const problem = oversized(request);
      if (problem) return reply.send({ data: null, errors: [tooComplex(problem).toJSON()] });
    });
    // mercurius declares GET /api/graphql; the same route takes the WebSocket upgrade.
    const wsHandler = subscriptionHandler({ schema, services, auth, secretKey, log: graphql.log });
    graphql.addHook('onRoute', (route) => {
      if (route.url !== graphqlPath) return;
      if (route.method === 'GET') route.wsHandler = wsHandler;
      // The OpenAPI document describes the REST API; the GraphQL API has its SDL.
      route.schema = { ...route.schema, hide: true };
    });
    await graphql.register(websocket, { options: { maxPayload: 1024 * 1024 } });
    const options: MercuriusOptions = {
      schema,
      path: graphqlPath,
      graphiql: false,
      allowBatchedQueries: true,
      jit: 1,
      context: (request: FastifyRequest) => graphqlContext(services, request.caller, secretKey),
      errorFormatter,
      errorHandler: handleError,
    };
    await graphql.register(mercurius, options);
    graphql.graphql.addHook('preExecution', async (executed, document, _context, variables) => {
      const refusal = overLimit(executed, document, variables as Record<string, unknown> | undefined);
      if (refusal) throw refusal;
    });
  });
}
