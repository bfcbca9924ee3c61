import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { rateLimitRefusals, registers, seconds } from './metrics.js';

interface RouteInstruments {
  requests: { inc(value: number): void };
  duration: { observe(seconds: number): void };
  /** Requests answered since the counter was last read. */
  uncounted: number;
}

/**
 * The instruments of each method, route and status, looked up once: prom-client otherwise sorts
 * and joins the labels of every observation.
 */
const instruments = new Map<string, RouteInstruments>();

/**
 * Caught up from the per-route counts whenever it is read (a scrape), so that counting a request
 * is a field increment rather than a second labelled prom-client update.
 */
const httpRequests = new Counter({
  name: 'vigil_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers,
  collect() {
    for (const route of instruments.values()) {
      if (route.uncounted === 0) continue;
      route.requests.inc(route.uncounted);
      route.uncounted = 0;
    }
  },
});

const httpDuration = new Histogram({
  name: 'vigil_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route pattern and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: seconds,
  registers,
});

function instrumentsOf(method: string, route: string, status: number): RouteInstruments {
  const key = `${method} ${status} ${route}`;
  let found = instruments.get(key);
  if (found === undefined) {
    const labels = { method, route, status: String(status) };
    instruments.set(key, (found = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels), uncounted: 0 }));
  }
  return found;
}

/** Counts an answered request under its route pattern (`/api/v1/alerts/:id`), never its raw URL. */
export function countResponse(request: FastifyRequest, reply: FastifyReply): void {
  const route = instrumentsOf(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
  route.uncounted += 1;
  route.duration.observe(reply.elapsedTime / 1000);
  if (reply.statusCode === 429) rateLimitRefusals.inc();
}
