import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { type HttpResult, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { createAlert, createProject, type ErrorBody, type Project } from './support/resources.js';

/** What every error response must be: JSON in the error format, its request id in the header too. */
function expectErrorFormat(response: HttpResult<unknown>, status: number, code: string): ErrorBody {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = response.body as ErrorBody;
  expect(body).toMatchObject({ error: expect.any(String), code });
  expect(body.error.length).toBeGreaterThan(0);
  expect(Object.keys(body).filter((key) => !['error', 'code', 'details', 'requestId'].includes(key))).toEqual([]);
  expect(body.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers.get('x-request-id')).toBe(body.requestId);
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|<html/i);
  return body;
}

describe.each(databaseKinds())('error responses on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
  });
  afterAll(() => t.close());

  const send = (method: string, path: string, options: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {}) =>
    t.request(method, path, { apiKey: org.apiKey, ...options });

  it('an unknown route for an authenticated caller is 404 NOT_FOUND in the error format', async () => {
    for (const [method, path] of [
      ['GET', 'nothing-here'],
      ['GET', 'alerts/x/y/z'],
      ['PUT', 'alerts'],
      ['POST', `projects/${project.id}/explode`],
    ]) {
      const response = await send(method, path, { headers: { accept: 'text/html' } });
      expectErrorFormat(response, 404, 'NOT_FOUND');
      expect(response.headers.get('x-ratelimit-limit')).toBe('100000');
    }
  });

  it('an unknown route under /api/v1 without a key is 401 first; other unknown server paths are 404 in the error format', async () => {
    expectErrorFormat(await t.request('GET', 'nothing-here'), 401, 'UNAUTHORIZED');
    expectErrorFormat(await t.request('GET', '/api/v2/projects', { headers: { accept: 'text/html' } }), 404, 'NOT_FOUND');
    // Other GET paths are the console's pages (console-auth.test.ts); any other method is no route.
    expectErrorFormat(await t.request('POST', '/no-such-page', { headers: { accept: 'text/html' } }), 404, 'NOT_FOUND');
  });

  it('malformed JSON is 422 VALIDATION_ERROR', async () => {
    for (const rawBody of ['{"title": ', '{title: "x"}', "{'a': 1}", 'nul', '{"a":1}}']) {
      const response = await send('POST', 'alerts', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(expectErrorFormat(response, 422, 'VALIDATION_ERROR').error, rawBody).toMatch(/JSON/);
    }
    const empty = await send('POST', 'alerts', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expectErrorFormat(empty, 422, 'VALIDATION_ERROR');
  });

  it('a body that would pollute prototypes is refused with 422, not a crash', async () => {
    const response = await send('POST', 'projects', {
      rawBody: '{"name":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expectErrorFormat(response, 422, 'VALIDATION_ERROR');
  });

  it('wrong types are 422 with one detail per field, and no type is coerced', async () => {
    const response = await send('POST', 'alerts', { body: { title: 5, severity: true, projectId: null, description: ['a'] } });
    const body = expectErrorFormat(response, 422, 'VALIDATION_ERROR');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(body.details?.map((problem) => problem.field).sort()).toEqual(['description', 'projectId', 'severity', 'title']);
    expect(body.details?.find((problem) => problem.field === 'title')?.message).toBe('must be string');
    expect(body.error).toContain('title must be string');

    const numberAsText = await send('POST', 'alerts', { body: { title: 'ok', severity: 'low', projectId: project.id, value: 42 } });
    expect(expectErrorFormat(numberAsText, 422, 'VALIDATION_ERROR').details).toEqual([{ field: 'value', message: 'must be string' }]);

    for (const body of [[], 'text', 7, null]) {
      const notAnObject = await send('POST', 'projects', { body });
      expect(expectErrorFormat(notAnObject, 422, 'VALIDATION_ERROR').details?.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
  });

  it('unknown body fields are 422 naming each of them', async () => {
    const response = await send('POST', 'alerts', {
      body: { title: 'x', severity: 'low', projectId: project.id, priority: 1, owner: 'me' },
    });
    const body = expectErrorFormat(response, 422, 'VALIDATION_ERROR');
    expect(body.details).toEqual([
      { field: 'priority', message: 'is not a known field' },
      { field: 'owner', message: 'is not a known field' },
    ]);
    expect(body.error).toContain('priority');
    expect(body.error).toContain('owner');
  });

  it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await send('POST', 'projects', { rawBody: 'name=x', headers: { 'content-type': contentType } });
      expectErrorFormat(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const charset = await send('POST', 'projects', {
      rawBody: JSON.stringify({ name: 'With charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });

  it('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE, with or without a Content-Length', async () => {
    const big = JSON.stringify({ name: 'x', description: 'a'.repeat(1024 * 1024) });
    const response = await send('POST', 'projects', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expectErrorFormat(response, 413, 'PAYLOAD_TOO_LARGE');

    const chunks = [Buffer.from('{"name":"x","description":"'), Buffer.alloc(1024 * 1024, 'a'), Buffer.from('"}')];
    const streamed = await fetch(`${t.baseUrl}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const list = await send('GET', 'projects?limit=100');
    expect((list.body as { data: Project[] }).data.map((p) => p.id)).not.toContain(undefined);
    expect((list.body as { data: Project[] }).data.some((p) => p.name === 'x')).toBe(false);
  });

  it('a bad cursor or limit is 422 naming the parameter', async () => {
    expect(expectErrorFormat(await send('GET', 'alerts?limit=1000'), 422, 'VALIDATION_ERROR').details?.[0].field).toBe('limit');
    expect(expectErrorFormat(await send('GET', 'users?cursor=nope'), 422, 'VALIDATION_ERROR').details?.[0].field).toBe('cursor');
  });

  it('ids that cannot exist are 404 in the error format: odd, too long, or not even a valid path', async () => {
    for (const id of ['x', encodeURIComponent("1'; DROP TABLE alerts;--"), 'a'.repeat(100), 'a'.repeat(101), '%E0%A4%A']) {
      expectErrorFormat(await send('GET', `alerts/${id}`), 404, 'NOT_FOUND');
    }
  });

  it('401, 403, 404, 409 and 422 all use the same format', async () => {
    expectErrorFormat(await t.request('GET', 'alerts', { apiKey: `svc_live_${'0'.repeat(64)}` }), 401, 'UNAUTHORIZED');
    const pro = await t.createOrg('pro');
    expectErrorFormat(await t.request('GET', 'alerts', { apiKey: pro.apiKey }), 403, 'PLAN_UPGRADE_REQUIRED');
    const alert = await createAlert(t, org, { title: 'Twice', projectId: project.id });
    await send('POST', `alerts/${alert.id}/resolve`);
    expectErrorFormat(await send('POST', `alerts/${alert.id}/resolve`), 409, 'CONFLICT');
  });

  it('an unexpected failure is 500 INTERNAL_ERROR without internals, logged with its request id', async () => {
    const broken = await startTestApp(kind);
    try {
      const brokenOrg = await broken.createOrg('business');
      await broken.database.db.exec('ALTER TABLE alerts RENAME TO alerts_gone');
      const response = await broken.request('GET', 'alerts', { apiKey: brokenOrg.apiKey });
      const body = expectErrorFormat(response, 500, 'INTERNAL_ERROR');
      expect(body.details).toBeUndefined();
      expect(JSON.stringify(body)).not.toMatch(/alerts|relation|select|stack/i);
      const logged = broken.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.level === 50);
      expect(logged).toMatchObject({ reqId: body.requestId, err: { message: expect.stringContaining('alerts') } });
      await broken.database.db.exec('ALTER TABLE alerts_gone RENAME TO alerts');
    } finally {
      await broken.close();
    }
  });

  // PGlite only: a closed PostgreSQL pool cannot be closed again by the suite's own cleanup.
  if (kind === 'pglite') it('a closed database also answers 500 in the error format, never a crash or HTML', async () => {
    const broken = await startTestApp(kind);
    try {
      const brokenOrg = await broken.createOrg('business');
      await broken.database.db.close();
      const response = await broken.request('POST', 'projects', { apiKey: brokenOrg.apiKey, body: { name: 'never stored' } });
      expectErrorFormat(response, 500, 'INTERNAL_ERROR');
    } finally {
      await broken.close();
    }
  });
});
