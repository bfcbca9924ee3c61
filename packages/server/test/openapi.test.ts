import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp } from './support/app.js';

interface Operation {
  parameters?: { name: string; in: string; schema: { enum?: string[] } }[];
  requestBody?: { content: Record<string, { schema: { required?: string[]; additionalProperties?: boolean } }> };
  responses: Record<string, unknown>;
  tags?: string[];
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
  security: Record<string, string[]>[];
}

describe.each(databaseKinds)('the OpenAPI document and reference page on %s', (kind) => {
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
    const result = await validator.validate(spec as unknown as Record<string, unknown>);
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
    expect(Object.keys(query).sort()).toEqual(['cursor', 'limit', 'projectId', 'severity', 'status']);
    expect(query.status.enum).toEqual(['active', 'acknowledged', 'resolved']);
    expect(query.severity.enum).toEqual(['critical', 'high', 'medium', 'low', 'info']);

    const createAlert = spec.paths['/api/v1/alerts'].post;
    const body = createAlert.requestBody?.content['application/json'].schema;
    expect(body?.required?.sort()).toEqual(['projectId', 'severity', 'title']);
    expect(body?.additionalProperties).toBe(false);
    expect(Object.keys(createAlert.responses).sort()).toEqual(['201', '4XX', '5XX']);
    expect(Object.keys(spec.paths['/api/v1/alerts/{id}'].delete.responses)).toContain('204');
    expect(spec.paths['/api/v1/users'].post.requestBody?.content['application/json'].schema.required?.sort()).toEqual(['email', 'role']);

    expect(Object.values(spec.components.securitySchemes)).toEqual([expect.objectContaining({ type: 'http', scheme: 'bearer' })]);
    expect(spec.security.length).toBe(1);
  });

  it('serves a readable reference page at /docs', async () => {
    const page = await fetch(`${t.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<html/i);
    expect(html).toMatch(/swagger-ui/i);
  });
});
