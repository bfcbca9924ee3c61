import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp } from './support/app.js';

interface Response {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: { $ref?: string; properties?: Record<string, { $ref?: string; items?: { $ref?: string } }> } }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  'x-vigil-client-method'?: string;
  parameters?: { name: string; in: string; schema: { enum?: string[] } }[];
  requestBody?: { content: Record<string, { schema: { required?: string[]; additionalProperties?: boolean } }> };
  responses: Record<string, Response>;
  tags?: string[];
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string; description?: string }[];
  components: {
    securitySchemes: Record<string, { type: string; scheme: string }>;
    schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }>;
    headers: Record<string, unknown>;
  };
  security: Record<string, string[]>[];
}

const operationsOf = (spec: OpenApi) =>
  Object.entries(spec.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

describe.each(databaseKinds())('the OpenAPI document and reference page on %s', (kind) => {
  let t: TestApp;
  let spec: OpenApi;

  beforeAll(async () => {
    t = await startTestApp(kind);
    const response = await t.request<OpenApi>('GET', 'openapi.json');
    expect(response.status).toBe(200);
    spec = response.body;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document, needing no API key, whose references all resolve', async () => {
    expect(spec.openapi).toMatch(/^3\.1\.\d+$/);
    const validator = new Validator();
    // A copy: resolveRefs() replaces the references in place.
    const result = await validator.validate(structuredClone(spec) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('lists every projects, alerts and users route with its method', () => {
    const expected: Record<string, string[]> = {
      '/api/v1/projects': ['get', 'post'],
      '/api/v1/projects/{id}': ['delete', 'get', 'patch'],
      '/api/v1/alerts': ['get', 'post'],
      '/api/v1/alerts/{id}': ['delete', 'get', 'patch'],
      '/api/v1/alerts/{id}/acknowledge': ['post'],
      '/api/v1/alerts/{id}/assign': ['post'],
      '/api/v1/alerts/{id}/resolve': ['post'],
      '/api/v1/users': ['get', 'post'],
      '/api/v1/users/{id}': ['get', 'patch'],
      '/api/v1/users/{id}/activate': ['post'],
      '/api/v1/users/{id}/deactivate': ['post'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(spec.paths[path] ?? {}).sort(), path).toEqual(methods);
    }
    expect(spec.paths['/api/v1/openapi.json']).toBeUndefined();
  });

  it('describes the filters, paging, bodies, statuses and the bearer scheme as the API behaves', () => {
    const listAlerts = spec.paths['/api/v1/alerts'].get;
    const query = Object.fromEntries((listAlerts.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
    expect(Object.keys(query).sort()).toEqual(['assigneeId', 'cursor', 'dedupKey', 'limit', 'projectId', 'q', 'severity', 'status']);
    expect(query.status.enum).toEqual(['active', 'acknowledged', 'resolved']);
    expect(query.severity.enum).toEqual(['critical', 'high', 'medium', 'low', 'info']);

    const createAlert = spec.paths['/api/v1/alerts'].post;
    const body = createAlert.requestBody?.content['application/json'].schema;
    expect(body?.required?.sort()).toEqual(['projectId', 'severity', 'title']);
    expect(body?.additionalProperties).toBe(false);
    expect(Object.keys(createAlert.responses).sort()).toEqual(['200', '201', '401', '403', '404', '408', '409', '413', '415', '422', '429', '431', '500', '503']);
    expect(Object.keys(spec.paths['/api/v1/alerts/{id}'].delete.responses)).toContain('204');
    expect(spec.paths['/api/v1/users'].post.requestBody?.content['application/json'].schema.required?.sort()).toEqual(['email', 'role']);

    expect(Object.values(spec.components.securitySchemes)).toEqual([expect.objectContaining({ type: 'http', scheme: 'bearer' })]);
    expect(spec.security.length).toBe(1);
  });

  it('names every operation after its client method: operationId, summary, namespace tag, x-vigil-client-method', () => {
    const operations = operationsOf(spec);
    expect(operations.length).toBeGreaterThanOrEqual(50);
    const tagNames = spec.tags.map((tag) => tag.name);
    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, where).toMatch(/^[A-Z][^\n]{5,80}$/);
      expect(operation['x-vigil-client-method'], where).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
      expect(operation.tags, where).toEqual([operation['x-vigil-client-method']!.split('.')[0]]);
      expect(tagNames, where).toContain(operation.tags![0]);
    }
    const ids = operations.map(({ operation }) => operation.operationId);
    const methods = operations.map(({ operation }) => operation['x-vigil-client-method']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(methods).size).toBe(methods.length);
    const named = (path: string, method: string) => {
      const operation = spec.paths[path][method];
      return [operation.operationId, operation['x-vigil-client-method']];
    };
    expect(named('/api/v1/alerts', 'get')).toEqual(['listAlerts', 'alerts.list']);
    expect(named('/api/v1/alerts/{id}/acknowledge', 'post')).toEqual(['acknowledgeAlert', 'alerts.acknowledge']);
    expect(named('/api/v1/users', 'post')).toEqual(['inviteUser', 'users.invite']);
    expect(named('/api/v1/webhooks/{id}/rotate-secret', 'post')).toEqual(['rotateWebhookSecret', 'webhooks.rotateSecret']);
    expect(named('/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', 'post')).toEqual(['retryWebhookDelivery', 'webhooks.deliveries.retry']);
    expect(named('/api/v1/projects/{id}/datasets', 'post')).toEqual(['uploadDataset', 'datasets.upload']);
    expect(named('/api/v1/datasets/{id}/rows', 'get')).toEqual(['listDatasetRows', 'datasets.rows']);
    expect(named('/api/v1/chat', 'post')).toEqual(['askChat', 'chat.ask']);
    expect(named('/api/v1/usage', 'get')).toEqual(['retrieveUsage', 'usage.retrieve']);
    expect(named('/api/v1/exports/{id}/download', 'get')).toEqual(['downloadExport', 'exports.download']);
  });

  it('names its resources once under components.schemas and refers to them', () => {
    const schemas = spec.components.schemas;
    for (const name of ['Alert', 'Project', 'User', 'Webhook', 'Delivery', 'Dataset', 'Connection', 'Export', 'QueryRecord', 'Usage', 'Error', 'PageMeta']) {
      expect(schemas[name], name).toBeDefined();
    }
    const listAlerts = spec.paths['/api/v1/alerts'].get.responses['200'].content!['application/json'].schema;
    expect(listAlerts.properties?.data.items?.$ref).toBe('#/components/schemas/Alert');
    expect(listAlerts.properties?.meta.$ref).toBe('#/components/schemas/PageMeta');
    const retrieveAlert = spec.paths['/api/v1/alerts/{id}'].get.responses['200'].content!['application/json'].schema;
    expect(retrieveAlert.properties?.data.$ref).toBe('#/components/schemas/Alert');
    expect(JSON.stringify(spec.paths)).not.toContain('"acknowledgedAt"');
    expect(schemas.Error.properties?.code.enum).toEqual(expect.arrayContaining(['UNAUTHORIZED', 'NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED']));
  });

  it("lists each operation's error statuses with the Error schema, and the headers responses carry", () => {
    const errorRef = { $ref: '#/components/schemas/Error' };
    for (const { path, method, operation } of operationsOf(spec)) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(operation.responses);
      expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '429', '500']));
      expect(statuses.filter((status) => /X/.test(status)), where).toEqual([]);
      if (path.includes('{id}')) expect(statuses, where).toContain('404');
      if (operation.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['413', '415', '422']));
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${where} ${status}`).not.toBe('Default Response');
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
        if (Number(status) >= 400) expect(response.content?.['application/json'].schema, `${where} ${status}`).toEqual(errorRef);
        if (Number(status) >= 400) expect(response.headers?.['X-Should-Retry'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/X-Should-Retry' });
        if (status === '401' || status === '403') expect(response.headers?.['X-RateLimit-Limit']).toBeUndefined();
        else expect(response.headers?.['X-RateLimit-Remaining'], `${where} ${status}`).toBeDefined();
      }
      expect(operation.responses['429'].headers?.['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    }
    expect(Object.keys(spec.paths['/api/v1/chat'].post.responses)).toEqual(expect.arrayContaining(['502', '503']));
    expect(Object.keys(spec.paths['/api/v1/alerts/{id}/acknowledge'].post.responses)).toContain('409');
    expect(spec.paths['/api/v1/exports/{id}/download'].get.responses['200'].headers?.['Content-Disposition']).toBeDefined();
    expect(Object.keys(spec.components.headers).sort()).toEqual([
      'Idempotent-Replayed', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id', 'X-Should-Retry',
    ]);
  });

  it('declares on every POST the Idempotency-Key it takes, the 409 of a repeat still running, and the replay mark', () => {
    const posts = operationsOf(spec).filter(({ method }) => method === 'post');
    expect(posts.length).toBeGreaterThanOrEqual(20);
    for (const { path, operation } of posts) {
      expect(operation.parameters, path).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(operation.responses['409'].description, path).toContain('IDEMPOTENCY_IN_PROGRESS');
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      for (const [, response] of success) expect(response.headers?.['Idempotent-Replayed'], path).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
    }
    expect(spec.paths['/api/v1/alerts/{id}/acknowledge'].post.responses['409'].description).toMatch(/^The alert is in a status .* Or IDEMPOTENCY_IN_PROGRESS/);
    expect(spec.paths['/api/v1/alerts'].get.parameters).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });

  it('serves a readable reference page at /docs', async () => {
    const page = await fetch(`${t.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<html/i);
    expect(html).toContain('Vigil API reference');
  });
});
