import { eventCatalog, eventNames, type EventName } from '../events/catalog.js';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `alert.created` → `AlertCreatedEvent`, `billing.subscription_activated` → `BillingSubscriptionActivatedEvent`. */
export const eventSchemaName = (event: EventName) =>
  `${event
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;

const onEventId = (event: EventName) => `on${eventSchemaName(event).replace(/Event$/, '')}`;

/** The headers every delivery carries, declared once under components.parameters. */
export const deliveryHeaders = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the delivery id (dlv_…), the same on every attempt; use it to ignore repeats.',
    schema: { type: 'string' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: Unix seconds when this attempt was signed; refuse ones far from now.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the base64-decoded secret after whsec_. ' +
      'During the 24 hours after a rotation it carries one signature per secret.',
    schema: { type: 'string' },
  },
  ServiceEvent: { name: 'X-Service-Event', in: 'header', required: true, description: 'The event name.', schema: { type: 'string' } },
  ServiceDelivery: { name: 'X-Service-Delivery', in: 'header', required: true, description: 'The delivery id, as webhook-id.', schema: { type: 'string' } },
  ServiceSignature: {
    name: 'X-Service-Signature',
    in: 'header',
    required: true,
    description: '`sha256=<lowercase hex HMAC-SHA256 of the body>` keyed by the whole secret string; the current secret only. Verify webhook-signature first.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
} as const;

/**
 * The OpenAPI 3.1 `webhooks` map and the payload schemas it refers to, from the event catalog:
 * each event's body is `{event, orgId, timestamp, data}` with `data` the resource's own schema,
 * and `WebhookEvent` is the union of them all, told apart by `event`.
 */
export function webhookDocument() {
  const schemas: Record<string, object> = {};
  const webhooks: Record<string, object> = {};
  for (const event of eventNames) {
    const { description, data } = eventCatalog[event];
    schemas[eventSchemaName(event)] = {
      type: 'object',
      description,
      required: ['event', 'orgId', 'timestamp', 'data'],
      properties: {
        event: { type: 'string', const: event },
        orgId: { type: 'string', description: 'The organization the event happened in.' },
        timestamp: { type: 'string', format: 'date-time', description: 'When the event happened.' },
        data: schemaRef(data.$id!),
      },
    };
    webhooks[event] = {
      post: {
        operationId: onEventId(event),
        summary: description,
        tags: ['webhook events'],
        security: [],
        parameters: Object.keys(deliveryHeaders).map((name) => ({ $ref: `#/components/parameters/${name}` })),
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef(eventSchemaName(event)) } } },
        responses: {
          '200': { description: 'Any 2xx answered within the timeout (10 s by default) acknowledges the delivery.' },
          '410': { description: 'Gone: the delivery fails at once and the webhook is disabled.' },
          default: {
            description:
              'Anything else, or no answer in time, is retried on the schedule (by default after 1, 5, 15 and 30 minutes; a Retry-After on 429 or 503 ' +
              'is honoured up to an hour); after the last attempt the delivery is failed.',
          },
        },
      },
    };
  }
  schemas.WebhookEvent = {
    description: 'The body of any delivery; `event` tells which.',
    oneOf: eventNames.map((event) => schemaRef(eventSchemaName(event))),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(eventNames.map((event) => [event, `#/components/schemas/${eventSchemaName(event)}`])),
    },
  };
  return { schemas, webhooks };
}
