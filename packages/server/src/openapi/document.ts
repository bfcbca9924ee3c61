import type { SwaggerOptions } from '@fastify/swagger';
import { replayedHeader } from '../platform/idempotency.js';
import { documentedResponses } from './error-responses.js';
import { deliveryHeaders, webhookDocument } from './webhooks.js';

const namespaces: Record<string, string> = {
  projects: 'Projects group alerts, datasets and questions.',
  alerts: 'Alerts and their lifecycle: active → acknowledged → resolved.',
  users: "The organization's members and their roles.",
  webhooks: 'Signed HTTPS deliveries of events, with their delivery history.',
  datasets: 'CSV and Excel uploads and database imports, stored as tables.',
  connections: 'PostgreSQL and MySQL databases to import from.',
  chat: "Questions about a project's data, answered by the configured AI model.",
  history: 'The questions asked and how they were answered.',
  usage: "This month's usage and the plan's limits.",
  exports: 'Alerts, query history and datasets as CSV, JSON or Excel files.',
  dashboards: "Charts and tables over a project's alerts and datasets, each widget a structured query or a guarded SELECT.",
  embed: 'Short-lived tokens that let another site show one dashboard, and the origins allowed to embed.',
  integrations: 'Alerts from other monitoring systems in their own formats: Prometheus Alertmanager.',
  apiKeys: "The organization's API keys; managed by admins signed in to the console, never with an API key.",
};

const header = (description: string, schema: object = { type: 'integer' }) => ({ description, schema });

const rateLimitHeaders = {
  'X-RateLimit-Limit': header("The organization's requests per minute."),
  'X-RateLimit-Remaining': header('Requests left in the current one-minute window.'),
  'X-RateLimit-Reset': header('When the current window ends, in Unix seconds.'),
};

const headers = {
  'X-Request-Id': header('Identifies this request in the logs; the same as requestId in an error body.', { type: 'string' }),
  ...rateLimitHeaders,
  'Retry-After': header('Seconds to wait before trying again (at least 1).'),
  'X-Should-Retry': header('On every error answer: `true` when sending the same request again may succeed (409 IDEMPOTENCY_IN_PROGRESS, 429, 5xx), `false` when it would get the same refusal.', {
    type: 'string',
    enum: ['true', 'false'],
  }),
  [replayedHeader]: header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
};

const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: the first request with this key runs and its answer is kept for 24 hours; ' +
    'a repeat of the same request gets that answer again and changes nothing. 1 to 255 printable ASCII characters (a UUID).',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

const inProgress = 'IDEMPOTENCY_IN_PROGRESS: a request with the same Idempotency-Key is still running; retry after a moment.';

const headerRef = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });

type Response = { description?: string; headers?: Record<string, unknown>; content?: unknown };
type Operation = { tags?: string[]; parameters?: object[]; responses?: Record<string, Response> };
type Document = { paths?: Record<string, Record<string, Operation>>; tags?: { name: string }[]; components?: { schemas?: object } };

/** Every POST of the API takes an Idempotency-Key (platform/idempotency.ts): its header, its 409 and its replay mark. */
function makeIdempotent(operation: Operation): void {
  const responses = (operation.responses ??= {});
  operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  const own = responses['409'];
  responses['409'] = own ? { ...own, description: `${own.description ?? ''} Or ${inProgress}`.trim() } : { ...responses['401'], description: inProgress };
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2')) response.headers = { ...response.headers, [replayedHeader]: headerRef(replayedHeader) };
  }
}

/**
 * Completes what the routes generate with what holds for every operation: the response headers
 * (X-Request-Id on every response; X-RateLimit-* on every response past the key and plan checks;
 * Retry-After on 429; X-Should-Retry on every error), idempotent POSTs, the namespaces' tags, and the webhooks with their payload
 * schemas.
 */
function complete(document: Document): Document {
  const used = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      for (const tag of operation.tags ?? []) used.add(tag);
      if (method === 'post') makeIdempotent(operation);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const refs: Record<string, unknown> = { 'X-Request-Id': headerRef('X-Request-Id') };
        if (status !== '401' && status !== '403') {
          for (const name of Object.keys(rateLimitHeaders) as (keyof typeof rateLimitHeaders)[]) refs[name] = headerRef(name);
        }
        if (status === '429') refs['Retry-After'] = headerRef('Retry-After');
        if (Number(status) >= 400) refs['X-Should-Retry'] = headerRef('X-Should-Retry');
        response.headers = { ...refs, ...response.headers };
      }
    }
  }
  const { schemas, webhooks } = webhookDocument();
  return {
    ...document,
    tags: [
      ...[...used].map((name) => ({ name, ...(namespaces[name] ? { description: namespaces[name] } : {}) })),
      { name: 'webhook events', description: 'What Vigil POSTs to a webhook url, one entry per event.' },
    ],
    components: { ...document.components, schemas: { ...document.components?.schemas, ...schemas } },
    webhooks,
  } as Document;
}

/** @fastify/swagger's options: the document is generated from the route schemas. */
export function openapiOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vigil REST API',
        version: '1.0.0',
        description:
          'Alerts and analytics, multi-tenant. Authenticate with an API key (`Authorization: Bearer svc_live_…`); ' +
          'errors are `{error, code, details?, requestId}`. See docs/api.md.',
      },
      // Relative: the document serves whichever host it was read from (127.0.0.1, localhost or
      // VIGIL_SITE_URL alike); a generated client is given its base URL.
      servers: [{ url: '/', description: 'The server this document was read from' }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: svc_live_ and 64 hex digits.' } },
        headers,
        parameters: { ...deliveryHeaders, IdempotencyKey: idempotencyKey },
      },
      security: [{ apiKey: [] }],
    },
    // Shared schemas appear under components.schemas by their $id (Alert, Dataset, Error, …).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => ({
      url,
      schema: schema?.response ? { ...schema, response: documentedResponses(schema, [route.method].flat()[0]) } : schema,
    }),
    transformObject: (input) => ('openapiObject' in input ? (complete(input.openapiObject as Document) as typeof input.openapiObject) : input.swaggerObject),
  };
}
