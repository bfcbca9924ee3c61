import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { type HttpResult, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createAlert, createProject, inviteUser } from './support/resources.js';
import { type OpenApi, type Operation, resolve, type Schema } from './support/openapi-document.js';
import { acceptLink, type SignedIn } from './support/sessions.js';

/**
 * A schema-driven fuzzer kept in the suite: it reads /api/v1/openapi.json and sends every
 * operation the classes of hostile input that once answered 500. Whatever the class, the answer
 * must be in the error format and never 5xx; what is stored must not change.
 */

interface Call {
  label: string;
  method: string;
  path: string;
  rawBody?: string | Buffer;
  contentType?: string;
}

const methods = ['get', 'post', 'put', 'patch', 'delete'];

function jsonBodySchema(spec: OpenApi, operation: Operation): Schema | undefined {
  const json = operation.requestBody?.content['application/json'];
  return json ? resolve(spec, json.schema) : undefined;
}

/** The string fields of a JSON body, nested objects' included, as paths. */
function stringFields(spec: OpenApi, schema: Schema, prefix: string[] = []): string[][] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
    const resolved = resolve(spec, property);
    const types = ([] as string[]).concat(resolved.type ?? []);
    if (types.includes('object') || resolved.properties) return stringFields(spec, resolved, [...prefix, name]);
    return types.includes('string') ? [[...prefix, name]] : [];
  });
}

function objectWith(path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path;
  return { [head]: rest.length === 0 ? value : objectWith(rest, value) };
}

function expectErrorFormat(call: Call, response: HttpResult<unknown>): void {
  const where = `${call.label}: ${call.method} ${call.path} → ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
  expect(response.status, where).toBeLessThan(500);
  if (response.status < 400) return;
  expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = response.body as Record<string, unknown>;
  expect(body, where).toMatchObject({ error: expect.any(String), code: expect.stringMatching(/^[A-Z_]+$/), requestId: expect.any(String) });
  expect(Object.keys(body).filter((key) => !['error', 'code', 'details', 'requestId'].includes(key)), where).toEqual([]);
  expect(JSON.stringify(body).length, where).toBeLessThan(20_000);
}

describe.each(databaseKinds())('hostile input on every operation of the OpenAPI document, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let admin: SignedIn;
  let other: TestOrg;
  let spec: OpenApi;
  /** Ids of the other organization, by the first path segment of the routes that take them. */
  const theirIds: Record<string, string> = {};
  let snapshotBefore: string;

  /** API keys are managed by admin sessions only (an API key is refused): those operations are tried as the admin. */
  const sessionOnly = (path: string) => path.startsWith('/api/v1/api-keys');
  const send = (call: Call) => {
    const caller = sessionOnly(call.path)
      ? { headers: { cookie: admin.cookie, ...(call.method === 'GET' ? {} : { 'x-csrf-token': admin.csrfToken }) } }
      : { apiKey: org.apiKey, headers: {} };
    return t.request(call.method, call.path, {
      apiKey: caller.apiKey,
      rawBody: call.rawBody,
      headers: { ...caller.headers, ...(call.contentType ? { 'content-type': call.contentType } : {}) },
    });
  };

  const operations = () =>
    Object.entries(spec.paths).flatMap(([template, byMethod]) =>
      Object.entries(byMethod)
        .filter(([method]) => methods.includes(method))
        .map(([method, operation]) => ({ template, method: method.toUpperCase(), operation })),
    );

  /** The path with every {param} replaced, relative to the server root. */
  const fill = (template: string, value: (name: string, segment: string) => string) => {
    const segments = template.split('/');
    return segments.map((segment, index) => segment.replace(/^\{(\w+)\}$/, (_all, name: string) => value(name, segments[index - 1]))).join('/');
  };
  const theirs = (template: string) => fill(template, (_name, segment) => theirIds[segment] ?? `${segment}_01jz0000000000000000000000`);

  const storedRows = async () =>
    JSON.stringify(
      await t.database.db.query(
        `SELECT (SELECT count(*) FROM projects) AS projects, (SELECT count(*) FROM alerts) AS alerts,
                (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM webhooks) AS webhooks,
                (SELECT string_agg(title || status, ',' ORDER BY id) FROM alerts) AS alert_state`,
      ),
    );

  async function sendAll(calls: Call[]): Promise<number> {
    // A few at a time: enough to be quick, few enough not to crowd the shared machine.
    for (let start = 0; start < calls.length; start += 8) {
      const batch = calls.slice(start, start + 8);
      const responses = await Promise.all(batch.map(send));
      batch.forEach((call, index) => expectErrorFormat(call, responses[index]));
    }
    return calls.length;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 1_000_000, founderJoins: false });
    admin = await acceptLink(t, org.inviteUrl!);
    other = await t.createOrg('business', { name: 'Other', adminEmail: 'other@example.com', rateLimitPerMinute: 1_000_000 });
    const ourProject = await createProject(t, org);
    await createAlert(t, org, { title: 'Ours', projectId: ourProject.id });
    const theirProject = await createProject(t, other, 'Theirs');
    theirIds.projects = theirProject.id;
    theirIds.alerts = (await createAlert(t, other, { title: 'Theirs', projectId: theirProject.id })).id;
    theirIds.users = (await inviteUser(t, other, 'them@example.com')).id;
    const response = await t.request<OpenApi>('GET', 'openapi.json');
    spec = response.body;
    snapshotBefore = await storedRows();
  });
  afterAll(() => t.close());

  it('covers the whole API', () => {
    expect(operations().length).toBeGreaterThanOrEqual(45);
  });

  it('a NUL character, junk or another organization’s id in a path parameter is 404 in the error format', async () => {
    const calls = operations()
      .filter(({ template }) => template.includes('{'))
      .flatMap(({ template, method }) => [
        { label: 'NUL in the path', method, path: fill(template, () => 'x%00y') },
        { label: 'encoded slash and dots', method, path: fill(template, () => '..%2F..%2Fetc') },
        { label: 'another organization’s id', method, path: theirs(template) },
      ]);
    await sendAll(calls);
    // Body validation may speak first where a body is expected; without one, the id decides.
    const bodiless = calls.filter((call) => call.label !== 'encoded slash and dots' && (call.method === 'GET' || call.method === 'DELETE' || call.label.startsWith('NUL')));
    for (const call of bodiless) {
      const response = await send(call);
      expect(response.status, `${call.label}: ${call.method} ${call.path}`).toBe(404);
    }
  });

  it('a NUL, a hex number, an empty value or a forged cursor in any query parameter is 4xx in the error format', async () => {
    const calls = operations().flatMap(({ template, method, operation }) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .flatMap((parameter) =>
          ['a%00b', '0x10', '', '%FF', 'x'.repeat(5000), 'bm90LWFuLWlk.AAAA'].map((value) => ({
            label: `query ${parameter.name}=${value.slice(0, 10)}`,
            method,
            path: `${theirs(template)}?${parameter.name}=${value}`,
          })),
        ),
    );
    expect(calls.length).toBeGreaterThan(50);
    await sendAll(calls);
    const nul = await t.request<{ details: { field: string }[] }>('GET', '/api/v1/alerts?status=a%00b', { apiKey: org.apiKey });
    expect(nul.status).toBe(422);
    expect(nul.body.details[0].field).toBe('status');
  });

  it('a NUL or a wrong type in each string field of every JSON body is 422 naming the field', async () => {
    const calls: (Call & { field: string })[] = [];
    for (const { template, method, operation } of operations()) {
      const schema = jsonBodySchema(spec, operation);
      if (!schema) continue;
      for (const field of stringFields(spec, schema)) {
        const path = theirs(template);
        const contentType = 'application/json';
        calls.push({ label: `NUL in ${field.join('.')}`, method, path, contentType, field: field.join('.'), rawBody: JSON.stringify(objectWith(field, 'a\u0000b')) });
        calls.push({ label: `object for ${field.join('.')}`, method, path, contentType, field: field.join('.'), rawBody: JSON.stringify(objectWith(field, { a: [1] })) });
      }
    }
    expect(calls.length).toBeGreaterThan(40);
    await sendAll(calls);
    for (const call of calls.filter((candidate) => candidate.label.startsWith('NUL'))) {
      const response = await send(call);
      expect(response.status, `${call.label}: ${call.method} ${call.path}`).toBe(422);
      expect((response.body as { details: { field: string }[] }).details.map((problem) => problem.field), call.label).toContain(call.field);
    }
  });

  it('malformed JSON, invalid UTF-8, another charset, huge and unknown fields are refused in the error format', async () => {
    const unknownFields = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`unknown_${index}`, index]));
    const bodies: Omit<Call, 'method' | 'path'>[] = [
      { label: 'malformed JSON', rawBody: '{"name": ', contentType: 'application/json' },
      { label: 'invalid UTF-8', rawBody: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), contentType: 'application/json' },
      { label: 'charset=utf-16', rawBody: '{}', contentType: 'application/json; charset=utf-16' },
      { label: '5000 unknown fields', rawBody: JSON.stringify(unknownFields), contentType: 'application/json' },
      { label: 'a NUL in a key', rawBody: '{"a\\u0000": 1}', contentType: 'application/json' },
      { label: 'an array', rawBody: '[1,2,3]', contentType: 'application/json' },
      { label: 'deep nesting', rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' },
      { label: 'form encoding', rawBody: 'a=1', contentType: 'application/x-www-form-urlencoded' },
    ];
    const calls = operations()
      .filter(({ method }) => method !== 'GET' && method !== 'DELETE')
      .flatMap(({ template, method }) => bodies.map((body) => ({ ...body, method, path: theirs(template) })));
    await sendAll(calls);

    const invalidUtf8 = await send({ ...bodies[1], method: 'POST', path: '/api/v1/projects' });
    expect(invalidUtf8).toMatchObject({ status: 422, body: { code: 'VALIDATION_ERROR', error: expect.stringMatching(/UTF-8/) } });
    const utf16 = await send({ ...bodies[2], method: 'POST', path: '/api/v1/projects' });
    expect(utf16).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE', error: expect.stringMatching(/UTF-8/) } });
    const unknown = await send({ ...bodies[3], method: 'POST', path: '/api/v1/projects' });
    expect(unknown.status).toBe(422);
    expect((unknown.body as { details: unknown[]; error: string }).details).toHaveLength(20);
    expect((unknown.body as { error: string }).error).toMatch(/and \d+ more/);
  });

  it('stored data is unchanged by all of it, and nothing of the other organization moved', async () => {
    expect(await storedRows()).toBe(snapshotBefore);
  });
});
