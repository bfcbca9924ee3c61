import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Db } from './db/connect.js';
import { databaseAnswers } from './db/readiness.js';
import { databaseRetryAfterSeconds } from './db/unavailable.js';
import { CommittedEvents } from './events/committed.js';
import { graphqlApi } from './graphql/plugin.js';
import { GrantCache } from './modules/api-keys/grant-cache.js';
import { LastUsedRecorder } from './modules/api-keys/last-used.js';
import { serveConsole } from './console/serve.js';
import { apiRoutes } from './modules/api-routes.js';
import { embedPublicRoutes } from './modules/embed/public-routes.js';
import { currentSessionRoutes, publicSessionRoutes, sessionCookie, sessionCookieName } from './modules/sessions/routes.js';
import { openapiOptions } from './openapi/document.js';
import { referencePageRoutes } from './openapi/reference-page.js';
import { sharedSchemas } from './openapi/shared-schemas.js';
import { enforceAccessPolicy } from './platform/access-policy.js';
import { type AuthOptions, requireApiKey } from './platform/auth.js';
import type { Clock } from './platform/clock.js';
import type { ResolvedConfig } from './platform/context.js';
import { answerClientError } from './platform/client-errors.js';
import { ConnectionDrain } from './platform/connection-drain.js';
import { ApiError } from './platform/errors.js';
import { answerUnroutable, installErrorHandler, installNotFoundHandler, sendError } from './platform/http-errors.js';
import { countResponse } from './platform/http-metrics.js';
import { idempotentPosts } from './platform/idempotency.js';
import { newId } from './platform/ids.js';
import { installJsonBodyParser } from './platform/json-body.js';
import { metricsRoute } from './platform/metrics-route.js';
import { answered, logRequest, loggerOptions, requestLogger } from './platform/logger.js';
import type { RateLimiter } from './platform/rate-limit.js';
import { sharedSerializers } from './platform/response-serializers.js';
import { schemaCompiler } from './platform/validation.js';
import { createServices, type Services } from './services.js';

/** What a client refused during a drain is asked to wait: by then a load balancer has moved on. */
const shutdownRetryAfterSeconds = 1;

export interface AppDeps {
  config: ResolvedConfig;
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  /** A pino destination for the logs; standard output when omitted. */
  logStream?: NodeJS.WritableStream;
}

export interface App {
  http: FastifyInstance;
  services: Services;
  grants: GrantCache;
  /** The committed events this process hears (API processes only): what GraphQL subscriptions are fed. */
  events: CommittedEvents | undefined;
  /** Stops taking requests, lets in-flight ones finish, then writes what is still buffered. */
  close(): Promise<void>;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock } = deps;
  const services = createServices({ db, clock, config });
  const grants = new GrantCache(db, clock);
  const lastUsed = new LastUsedRecorder(db);

  const http = Fastify({
    logger: loggerOptions(config.logLevel, deps.logStream),
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    genReqId: () => newId('request'),
    // request.ip: the client's address, taken from X-Forwarded-For only through these proxies.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: 1024 * 1024,
    // Refused in the error format by the onRequest hook below instead of Fastify's own body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: answerUnroutable,
    clientErrorHandler: answerClientError,
    // A body trickled in a byte at a time must not hold a connection forever.
    requestTimeout: config.requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(config.requestTimeoutMs, 5000) },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  http.server.headersTimeout = Math.min(config.requestTimeoutMs, 20_000);
  http.setValidatorCompiler(schemaCompiler);
  // Bodies are JSON: without this, text/plain (what fetch sends for a bare string) reaches validation as a string.
  http.removeContentTypeParser('text/plain');
  installJsonBodyParser(http);
  installErrorHandler(http);
  // The api role serves the console too, whose pages answer the paths no route has.
  if (config.role === 'worker') installNotFoundHandler(http);
  else await serveConsole(http);

  let closing = false;
  const drain = new ConnectionDrain(http.server);
  // Callback-style hooks: an async hook costs a promise and a microtask on every request.
  http.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    if (!closing) return done();
    // A request that arrives on a kept-alive connection while the server drains.
    reply.header('Connection', 'close').header('Retry-After', shutdownRetryAfterSeconds);
    void sendError(reply, request, new ApiError('SERVICE_UNAVAILABLE', 'This server is shutting down; retry the request (another server will take it).'));
  });
  http.addHook('onResponse', (request, reply, done) => {
    countResponse(request, reply);
    logRequest(request, answered(reply));
    done();
  });

  metricsRoute(http, { db, token: config.metricsToken, projectSql: () => services.chat.readers.load });
  http.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  http.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (await databaseAnswers(db)) return { status: 'ok' };
    return reply
      .status(503)
      .header('Retry-After', databaseRetryAfterSeconds)
      .send({ status: 'unavailable', error: 'The database is not reachable.' });
  });

  // REST and GraphQL admit callers through the same function with the same options: one counter.
  const auth: AuthOptions = {
    lookupGrant: (hash) => grants.lookup(hash),
    touchKey: (keyId, at) => lastUsed.touch(keyId, at),
    countRequest: (orgId, at) => services.usage.meter.countRequest(orgId, at),
    limiter: deps.limiter,
    clock,
  };
  let committedEvents: CommittedEvents | undefined;

  // A worker process serves only the health checks: the REST and GraphQL APIs are the api role's.
  if (config.role !== 'worker') {
    // Heard before the routes are registered: REST's alert stream and GraphQL's subscriptions read them.
    const heard = await CommittedEvents.listen(db, {
      onError: (error) => http.log.error({ err: error }, 'committed event not delivered'),
      onCaughtUp: (delivered) => http.log.warn({ delivered }, 'committed-events listener reconnected; events committed meanwhile read back from the events table'),
    });
    committedEvents = heard;
    for (const schema of sharedSchemas) http.addSchema(schema);
    await http.register(swagger, openapiOptions());
    referencePageRoutes(http, () => http.swagger());
    // Parsed only where a session may be used (platform/auth.ts), not on every request.
    await http.register(cookie, { hook: false });
    const consoleSession = { sessions: services.sessions, siteUrl: config.siteUrl };

    await http.register(
      async (v1) => {
        v1.get('/openapi.json', { schema: { hide: true } }, async () => http.swagger());
        await v1.register(publicSessionRoutes, consoleSession);
        await v1.register(async (authenticated) => {
          requireApiKey(authenticated, {
            ...auth,
            sessions: {
              cookieName: sessionCookieName,
              present: (token) => services.sessions.present(token),
              csrfMatches: (token, presented) => services.sessions.csrfMatches(token, presented),
              renewCookie: (reply, token) => sessionCookie(config.siteUrl).set(reply, token),
            },
            sessionRateLimit: config.sessionRateLimit,
          });
          enforceAccessPolicy(authenticated, '/api/v1');
          idempotentPosts(authenticated, { db, clock });
          installNotFoundHandler(authenticated);
          await authenticated.register(apiRoutes, { services, events: heard, keyRevoked: () => grants.forget() });
          await authenticated.register(currentSessionRoutes, consoleSession);
        });
      },
      { prefix: '/api/v1' },
    );
    await http.register(graphqlApi, {
      services,
      auth,
      events: heard,
      secretKey: config.secretKey,
      subscriptionCaps: config.graphqlSubscriptions,
    });
    await http.register(embedPublicRoutes, { prefix: '/embed', embed: services.embed });
  }

  return {
    http,
    services,
    grants,
    events: committedEvents,
    async close() {
      closing = true;
      await drain.during(() => http.close());
      await committedEvents?.close();
      await lastUsed.close().catch((error: unknown) => http.log.error({ err: error }, 'could not record key use'));
      await services.usage.close().catch((error: unknown) => http.log.error({ err: error }, 'could not record usage'));
      await services.chat.readers.close();
    },
  };
}
