import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/connect.js';
import { ApiError } from './errors.js';
import { sendError } from './http-errors.js';
import { dueDeliveries } from '../webhooks/queue.js';
import { databasePool, projectSqlStatements, registry, webhookOldestDueAge, webhookQueueDue } from './metrics.js';

export interface MetricsRouteOptions {
  db: Db;
  /** VIGIL_METRICS_TOKEN: required as a bearer token; unset → loopback clients only (DESIGN §3.2). */
  token: string | undefined;
  /** The project-SQL queue (ai/project-reader.ts): statements running and waiting, read at scrape time. */
  projectSql: () => { running: number; waiting: number };
}

const loopback = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads what is measured at scrape time: the webhook queue and the connection pool. */
async function readGauges(db: Db): Promise<void> {
  const queue = await dueDeliveries(db);
  webhookQueueDue.set(queue.due);
  webhookOldestDueAge.set(queue.oldestAgeSeconds);
  const pool = db.poolStats?.();
  if (pool) for (const [state, count] of Object.entries(pool)) databasePool.set({ state }, count);
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoute(http: FastifyInstance, options: MetricsRouteOptions): void {
  http.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (options.token !== undefined) {
      const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!sameSecret(presented, options.token)) {
        return sendError(reply, request, new ApiError('UNAUTHORIZED', 'Send the metrics token as Authorization: Bearer <VIGIL_METRICS_TOKEN>.'));
      }
    } else if (!loopback.has(request.ip)) {
      return sendError(reply, request, new ApiError('FORBIDDEN', 'Metrics are served to loopback clients only unless VIGIL_METRICS_TOKEN is set.'));
    }
    for (const [state, count] of Object.entries(options.projectSql())) projectSqlStatements.set({ state }, count);
    // The gauges read from the database; the process's own metrics are still worth a scrape without it.
    await readGauges(options.db).catch((error: unknown) => request.log.warn({ err: error }, 'could not read the webhook queue for /metrics'));
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
