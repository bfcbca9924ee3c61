import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration, httpRequests, rateLimitRefusals } from './metrics.js';

/** Counts an answered request under its route pattern (`/api/v1/alerts/:id`), never its raw URL. */
export function countResponse(request: FastifyRequest, reply: FastifyReply): void {
  const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, reply.elapsedTime / 1000);
  if (reply.statusCode === 429) rateLimitRefusals.inc();
}
