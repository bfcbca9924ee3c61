import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { EventName } from '../../events/catalog.js';
import type { CommittedEvents } from '../../events/committed.js';
import type { RecordedEvent } from '../../events/outbox.js';

/** Every change an alert list or an alert's page shows. */
const alertEvents: EventName[] = ['alert.created', 'alert.acknowledged', 'alert.assigned', 'alert.resolved', 'alert.critical', 'alert.deleted'];

/** A comment line this often keeps proxies from closing a quiet stream. */
const keepAliveMs = 20_000;
/** How long a browser waits before reconnecting (the EventSource `retry` field). */
const reconnectAfterMs = 1_000;

/**
 * Server-sent events of the organization's committed alert changes (GET /api/v1/alerts/stream):
 * what the console's alert pages listen to. An EventSource sends the session cookie by itself and
 * reconnects by itself, which a GraphQL WebSocket (keys only, DESIGN §3.7) would not give a
 * console session. Each message is `event: alert`, `id` the event id, `data` {event, data: alert}.
 * Not in the OpenAPI document: a stream is not a request–response operation the client libraries
 * could offer; they have GraphQL subscriptions.
 */
export function alertStreamRoute(app: FastifyInstance, events: CommittedEvents): void {
  const open = new Set<PassThrough>();
  // A stream never ends by itself: end them when the server closes, or closing would wait forever.
  app.addHook('preClose', (done) => {
    for (const stream of open) stream.end();
    done();
  });

  app.get<{ Querystring: { projectId?: string } }>(
    '/alerts/stream',
    {
      schema: {
        hide: true,
        querystring: { type: 'object', properties: { projectId: { type: 'string', maxLength: 100 } }, additionalProperties: false },
      },
    },
    (request, reply) => {
      const { orgId } = request.caller;
      const { projectId } = request.query;
      const stream = new PassThrough();
      open.add(stream);
      const accept = (recorded: RecordedEvent) => !projectId || (recorded.data as { projectId?: string }).projectId === projectId;
      const subscriptions = alertEvents.map((event) => events.subscribe(orgId, event, accept));
      const send = (recorded: RecordedEvent) =>
        stream.write(`event: alert\nid: ${recorded.id}\ndata: ${JSON.stringify({ event: recorded.event, data: recorded.data })}\n\n`);
      for (const subscription of subscriptions) {
        void (async () => {
          for await (const recorded of subscription) send(recorded);
        })();
      }
      const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), keepAliveMs);
      const stop = () => {
        clearInterval(keepAlive);
        open.delete(stream);
        for (const subscription of subscriptions) void subscription.return?.();
        stream.end();
      };
      request.raw.on('close', stop);
      stream.on('finish', stop);
      stream.write(`retry: ${reconnectAfterMs}\n: live\n\n`);
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  );
}
