import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isWellFormedApiKey } from '../api-keys/key-material.js';
import { ApiError } from '../../platform/errors.js';
import { sendError } from '../../platform/http-errors.js';
import { hasPrefix } from '../../platform/ids.js';
import { single } from '../../platform/pagination.js';
import { IdParams, responses, StringEnum } from '../../platform/route-schemas.js';
import { iframePage } from './iframe-page.js';
import { EmbeddedDashboard, themes } from './schema.js';
import { sdkAsset } from './sdk-asset.js';
import type { EmbedService } from './service.js';

const notBuilt = () => new ApiError('SERVICE_UNAVAILABLE', 'The embed SDK has not been built on this server: run `npm run build` (npm ci does).');

function embedToken(request: FastifyRequest): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new ApiError('UNAUTHORIZED', 'Send the embed token in the Authorization header: Bearer <token>.');
  if (isWellFormedApiKey(match[1])) throw new ApiError('UNAUTHORIZED', 'The embed API takes an embed token, not an API key.');
  return match[1];
}

/**
 * Everything under {site_url}/embed: the SDK script, the iframe page and the read API the
 * component calls with its embed token. None of it takes an API key, and nothing under /api/v1
 * takes an embed token (platform/auth.ts accepts only svc_live_ keys there).
 */
export const embedPublicRoutes: FastifyPluginAsyncTypebox<{ embed: EmbedService }> = async (app, { embed }) => {
  const hide = true;

  app.get('/sdk.js', { schema: { hide, querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64 })) }) } }, async (request, reply) => {
    const asset = await sdkAsset();
    if (!asset) return sendError(reply, request, notBuilt());
    const etag = `"${asset.hash}"`;
    // A URL naming this build's hash never changes meaning; the bare URL is revalidated (cheaply, by ETag).
    const immutable = request.query.v === asset.hash;
    reply
      .header('ETag', etag)
      .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=86400')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('Vary', 'Accept-Encoding')
      .type('text/javascript; charset=utf-8');
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.header('Content-Encoding', 'gzip').send(asset.gzipped);
    return reply.send(asset.body);
  });

  app.get(
    '/dashboards/:id',
    {
      schema: {
        hide,
        params: IdParams,
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 4000 }), theme: Type.Optional(StringEnum(themes)) }),
      },
    },
    async (request, reply) => {
      if (!hasPrefix('dashboard', request.params.id)) return sendError(reply, request, new ApiError('NOT_FOUND', 'No such dashboard.'));
      const asset = await sdkAsset();
      if (!asset) return sendError(reply, request, notBuilt());
      const { token } = request.query;
      const orgId = await embed.organizationOf(token);
      const origins = orgId === undefined ? undefined : await embed.allowedOrigins(orgId);
      // A token that is not ours cannot name an organization: then no page may frame this one.
      const ancestors = origins === undefined ? "'none'" : origins.length === 0 ? '*' : origins.join(' ');
      const verified = await embed.authorize(token, request.params.id).catch(() => undefined);
      const theme = request.query.theme ?? verified?.theme ?? 'light';
      return reply
        .header(
          'Content-Security-Policy',
          `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
        )
        .header('Referrer-Policy', 'no-referrer')
        .header('Cache-Control', 'no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(iframePage({ dashboardId: request.params.id, token, theme, sdkVersion: asset.hash }));
    },
  );

  await app.register(embedReadApi, { embed });
};

/** The read API the component calls: the embed token as bearer, CORS open to the organization's allowed origins. */
const embedReadApi: FastifyPluginAsyncTypebox<{ embed: EmbedService }> = async (api, { embed }) => {
  const hide = true;
  // Any page may ask (the preflight carries no token); the answer itself is refused to an origin the organization has not allowed.
  api.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header('Access-Control-Allow-Origin', request.headers.origin ?? '*').header('Vary', 'Origin');
    done();
  });

  api.options('/api/dashboards/:id', { schema: { hide } }, (_request, reply) =>
    reply
      .status(204)
      .header('Access-Control-Allow-Methods', 'GET')
      .header('Access-Control-Allow-Headers', 'Authorization')
      .header('Access-Control-Max-Age', '600')
      .send(),
  );

  api.get(
    '/api/dashboards/:id',
    { schema: { hide, params: IdParams, response: responses({ 200: single(EmbeddedDashboard) }) } },
    async (request, reply) => {
      const claims = await embed.authorize(embedToken(request), request.params.id);
      const origin = request.headers.origin;
      const allowed = await embed.allowedOrigins(claims.orgId);
      if (origin !== undefined && allowed.length > 0 && !allowed.includes(origin)) {
        throw new ApiError('FORBIDDEN', `Pages at ${origin} are not allowed to embed this organization's dashboards.`);
      }
      reply.header('Cache-Control', 'no-store');
      return { data: await embed.read(claims) };
    },
  );
};
