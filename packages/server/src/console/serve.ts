import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../platform/errors.js';
import { sendError } from '../platform/http-errors.js';

/** Where `npm run build -w packages/console` (run by `npm ci`'s prepare) writes the console. */
export const consoleDist = fileURLToPath(new URL('../../../console/dist', import.meta.url));

/** Paths that belong to the server; the console's page fallback never answers them. */
const serverPaths = /^\/(api|docs|embed|healthz|readyz|metrics)(\/|$|\?)/;

/** The console's own pages load only its own scripts and styles, and are never framed. */
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the web console at `/`: hashed assets under /assets with a year's caching (a new build has
 * new names), and index.html, never cached, for every other GET that is not a server path, so a
 * reload of /alerts or /developers/api-keys opens that page. Anything else is the JSON 404.
 */
export async function serveConsole(app: FastifyInstance, dist = consoleDist): Promise<void> {
  const indexPath = join(dist, 'index.html');
  const built = existsSync(indexPath);
  if (built) {
    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      prefix: '/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      schemaHide: true,
    });
  }
  const index = built ? readFileSync(indexPath) : undefined;
  app.setNotFoundHandler((request, reply) => {
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !serverPaths.test(request.url) && !request.url.startsWith('/assets/');
    if (!isPage) return sendError(reply, request, new ApiError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`));
    if (!index) {
      return sendError(reply, request, new ApiError('SERVICE_UNAVAILABLE', 'The console is not built: run `npm run build` (npm ci does it) and restart.'));
    }
    return reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', contentSecurityPolicy)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(index);
  });
}
