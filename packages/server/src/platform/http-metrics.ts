import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration, httpRequests, rateLimitRefusals } from './metrics.js';

interface RouteInstruments {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * The instruments of each method, route and status, looked up once: prom-client otherwise sorts
 * and joins the labels of every observation, twice per request.
 */
const instruments = new Map<string, RouteInstruments>();

function instrumentsOf(method: string, route: string, status: number): RouteInstruments {
  const key = `${method} ${status} ${route}`;
  let found = instruments.get(key);
  if (found === undefined) {
    const labels = { method, route, status: String(status) };
    instruments.set(key, (found = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) }));
  }
  return found;
}

/** Counts an answered request under its route pattern (`/api/v1/alerts/:id`), never its raw URL. */
export function countResponse(request: FastifyRequest, reply: FastifyReply): void {
  const { requests, duration } = instrumentsOf(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
  requests.inc();
  duration.observe(reply.elapsedTime / 1000);
  if (reply.statusCode === 429) rateLimitRefusals.inc();
}
