import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Db } from './db/connect.js';
import { GrantCache } from './modules/api-keys/grant-cache.js';
import { LastUsedRecorder } from './modules/api-keys/last-used.js';
import { serveConsole } from './console/serve.js';
import { apiRoutes } from './modules/api-routes.js';
import { currentSessionRoutes, publicSessionRoutes, sessionCookie, sessionCookieName } from './modules/sessions/routes.js';
import { enforceAccessPolicy } from './platform/access-policy.js';
import { requireApiKey } from './platform/auth.js';
import type { Clock } from './platform/clock.js';
import type { ResolvedConfig } from './platform/context.js';
import { answerUnroutable, installErrorHandler, installNotFoundHandler } from './platform/http-errors.js';
import { newId } from './platform/ids.js';
import { loggerOptions } from './platform/logger.js';
import type { RateLimiter } from './platform/rate-limit.js';
import { schemaCompiler } from './platform/validation.js';
import { createServices, type Services } from './services.js';

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
  /** Stops taking requests, lets in-flight ones finish, then writes what is still buffered. */
  close(): Promise<void>;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, clock } = deps;
  const services = createServices({ db, clock, config });
  const grants = new GrantCache(db);
  const lastUsed = new LastUsedRecorder(db);

  const http = Fastify({
    logger: loggerOptions(config.logLevel, deps.logStream),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId('request'),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: answerUnroutable,
  }).withTypeProvider<TypeBoxTypeProvider>();
  http.setValidatorCompiler(schemaCompiler);
  // Bodies are JSON: without this, text/plain (what fetch sends for a bare string) reaches validation as a string.
  http.removeContentTypeParser('text/plain');
  installErrorHandler(http);
  // The api role serves the console too, whose pages answer the paths no route has.
  if (config.role === 'worker') installNotFoundHandler(http);
  else await serveConsole(http);

  // Callback-style hooks: an async hook costs a promise and a microtask on every request.
  http.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  http.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
    done();
  });

  http.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  http.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await db.query('SELECT 1');
      return { status: 'ok' };
    } catch {
      return reply.status(503).send({ status: 'unavailable', error: 'The database is not reachable.' });
    }
  });

  // A worker process serves only the health checks: the REST API is the api role's.
  if (config.role !== 'worker') {
    await http.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Vigil REST API', version: '1.0.0', description: 'Alerts and analytics, multi-tenant. See docs/api.md.' },
        servers: [{ url: config.siteUrl }],
        components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_live_<64 hex>' } } },
        security: [{ apiKey: [] }],
      },
    });
    await http.register(swaggerUi, { routePrefix: '/docs' });
    await http.register(cookie);
    const consoleSession = { sessions: services.sessions, siteUrl: config.siteUrl };

    await http.register(
      async (v1) => {
        v1.get('/openapi.json', { schema: { hide: true } }, async () => http.swagger());
        await v1.register(publicSessionRoutes, consoleSession);
        await v1.register(async (authenticated) => {
          requireApiKey(authenticated, {
            lookupGrant: (hash) => grants.lookup(hash),
            touchKey: (keyId, at) => lastUsed.touch(keyId, at),
            countRequest: (orgId, at) => services.usage.meter.countRequest(orgId, at),
            limiter: deps.limiter,
            clock,
            sessions: {
              cookieName: sessionCookieName,
              present: (token) => services.sessions.present(token),
              csrfMatches: (token, presented) => services.sessions.csrfMatches(token, presented),
              renewCookie: (reply, token) => sessionCookie(config.siteUrl).set(reply, token),
            },
          });
          enforceAccessPolicy(authenticated, '/api/v1');
          installNotFoundHandler(authenticated);
          await authenticated.register(apiRoutes, { services, keyRevoked: () => grants.forget() });
          await authenticated.register(currentSessionRoutes, consoleSession);
        });
      },
      { prefix: '/api/v1' },
    );
  }

  return {
    http,
    services,
    grants,
    async close() {
      await http.close();
      await lastUsed.close().catch((error: unknown) => http.log.error({ err: error }, 'could not record key use'));
      await services.usage.close().catch((error: unknown) => http.log.error({ err: error }, 'could not record usage'));
    },
  };
}
