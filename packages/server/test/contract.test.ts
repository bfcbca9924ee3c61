import { connect } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpResult, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { salesCsv } from './support/dashboards.js';
import { upload } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { createAlert, createProject, inviteUser } from './support/resources.js';
import { type OpenApi, type Operation, resolve, type Schema } from './support/openapi-document.js';
import { acceptLink, type SignedIn } from './support/sessions.js';

/**
 * The contract, checked answer by answer: every operation of /api/v1/openapi.json is called with
 * valid input and with hostile input (another organization's ids, malformed or mistyped bodies,
 * a bad Idempotency-Key, no credentials, an oversized body), and every answer's status must be
 * one the operation declares, its body valid against the schema declared for that status.
 */

interface Call {
  label: string;
  template: string;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  caller?: 'none' | 'default';
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const methods = ['get', 'post', 'put', 'patch', 'delete'];
const foreignId = (segment: string) => `${segment.replace(/s$/, '').replace('-', '')}_01jz0000000000000000000000`;

describe.each(databaseKinds())('every answer of every operation is declared in the contract, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let admin: SignedIn;
  let spec: OpenApi;
  let ajv: Ajv2020;
  /** Our ids by the name a path segment or a body field gives them (projects / projectId → the project's id). */
  const ours: Record<string, string> = {};
  const theirs: Record<string, string> = {};
  const undeclared: string[] = [];
  const invalidBodies: string[] = [];
  const validAnswers = new Map<string, number>();

  const operations = () =>
    Object.entries(spec.paths).flatMap(([template, byMethod]) =>
      Object.entries(byMethod)
        .filter(([method]) => methods.includes(method))
        .map(([method, operation]) => ({ template, method: method.toUpperCase(), operation })),
    );
  const idFor = (ids: Record<string, string>, name: string) => ids[name.replace(/Id$/, '').replace(/s$/, '')] ?? foreignId(name);
  const fill = (template: string, ids: Record<string, string>) =>
    template.replace(/\{(\w+)\}/g, (_all, name: string, offset: number) => {
      const segment = name === 'id' ? template.slice(0, offset - 1).split('/').at(-1)! : name;
      return encodeURIComponent(idFor(ids, segment));
    });

  /** A small instance of a schema, with ids from `ids` for fields named …Id. */
  function example(schema: Schema | undefined, ids: Record<string, string>, name = ''): unknown {
    const resolved = resolve(spec, schema);
    if (/Id$/.test(name)) return idFor(ids, name);
    // Making an admin is for admin sessions only; the calls here are an API key's.
    if (name === 'role') return 'member';
    if (resolved.enum) return resolved.enum[0];
    const type = [resolved.type ?? (resolved.properties ? 'object' : 'string')].flat().find((one) => one !== 'null');
    if (type === 'object') {
      // An update with nothing required still needs one field.
      const required = new Set(resolved.required?.length ? resolved.required : Object.keys(resolved.properties ?? {}).slice(0, 1));
      return Object.fromEntries(
        Object.entries(resolved.properties ?? {})
          .filter(([key]) => required.has(key))
          .map(([key, property]) => [key, example(property, ids, key)]),
      );
    }
    if (type === 'array') return Array.from({ length: Math.max(1, resolved.minItems ?? 0) }, () => example(resolved.items, ids, name.replace(/s$/, '')));
    if (type === 'integer' || type === 'number') return resolved.minimum ?? 1;
    if (type === 'boolean') return true;
    if (resolved.format === 'email') return `contract-${Math.random().toString(36).slice(2)}@example.com`;
    if (resolved.format === 'uri' || /url$/i.test(name)) return 'https://example.com/contract';
    if (name === 'sql') return 'SELECT 1 AS one';
    return 'x'.repeat(Math.max(3, resolved.minLength ?? 0));
  }

  function callsFor(template: string, method: string, operation: Operation): Call[] {
    const json = operation.requestBody?.content['application/json'];
    const isUpload = operation.requestBody !== undefined && json === undefined;
    const validBody = isUpload ? salesCsv : json ? JSON.stringify(example(json.schema, ours)) : undefined;
    const type = isUpload ? 'text/csv' : 'application/json';
    const ourPath = fill(template, ours);
    const withBody = (body: string | Buffer | undefined, contentType = type) =>
      body === undefined ? {} : { body, headers: { 'content-type': contentType } };
    const calls: Call[] = [
      { label: 'valid', template, method, path: ourPath, ...withBody(validBody) },
      { label: 'no credentials', template, method, path: ourPath, caller: 'none', ...withBody(validBody) },
    ];
    // Any request but a GET may carry a body, so any may be refused for it.
    if (method !== 'GET') {
      calls.push({ label: 'malformed JSON', template, method, path: ourPath, body: '{"unterminated', headers: { 'content-type': 'application/json' } });
      calls.push({ label: 'another media type', template, method, path: ourPath, body: '<x/>', headers: { 'content-type': 'application/xml' } });
    }
    if (template.includes('{')) calls.push({ label: "another organization's ids", template, method, path: fill(template, theirs), ...withBody(validBody) });
    if (json) {
      calls.push({ label: "another organization's ids in the body", template, method, path: ourPath, ...withBody(JSON.stringify(example(json.schema, theirs))) });
      calls.push({ label: 'wrong types', template, method, path: ourPath, ...withBody(JSON.stringify({ name: 12, projectId: [], role: {}, limit: 'x' })) });
      calls.push({ label: 'too large', template, method, path: ourPath, ...withBody(JSON.stringify({ name: 'x'.repeat(1_100_000) })) });
    }
    if (method === 'POST') calls.push({ label: 'a malformed Idempotency-Key', template, method, path: ourPath, ...withBody(validBody), headers: { ...withBody(validBody).headers, 'idempotency-key': 'two words' } });
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query') calls.push({ label: `query ${parameter.name} hostile`, template, method, path: `${ourPath}?${parameter.name}=%00${parameter.name === 'projectId' ? theirs.project : ''}` });
    }
    return calls;
  }

  const sessionOnly = (path: string) => path.startsWith('/api/v1/api-keys');
  function send(call: Call): Promise<HttpResult<unknown>> {
    const headers: Record<string, string> = { ...call.headers };
    let apiKey: string | undefined;
    if (call.caller !== 'none' && sessionOnly(call.path)) {
      headers.cookie = admin.cookie;
      if (call.method !== 'GET') headers['x-csrf-token'] = admin.csrfToken;
    } else if (call.caller !== 'none') apiKey = org.apiKey;
    return t.request(call.method, call.path, { apiKey, rawBody: call.body, headers });
  }

  function check(call: Call, operation: Operation, response: HttpResult<unknown>): void {
    const where = `${call.label}: ${call.method} ${call.path.slice(0, 120)} → ${response.status}`;
    if (call.label === 'valid') validAnswers.set(`${call.method} ${call.template}`, response.status);
    const declared = operation.responses?.[String(response.status)];
    if (!declared) {
      undeclared.push(`${where} ${JSON.stringify(response.body).slice(0, 200)}`);
      return;
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0];
    if (response.status === 204) return;
    const content = declared.content?.[mediaType];
    if (!content) {
      invalidBodies.push(`${where}: ${mediaType} is not declared (${Object.keys(declared.content ?? {}).join(', ')})`);
      return;
    }
    if (mediaType !== 'application/json' || content.schema?.format === 'binary') return;
    const pointer = ['paths', call.template, call.method.toLowerCase(), 'responses', String(response.status), 'content', mediaType, 'schema']
      .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
      .join('/');
    const validate = ajv.getSchema(`openapi#/${pointer}`)!;
    if (!validate(response.body)) invalidBodies.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(response.body).slice(0, 200)}`);
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 1_000_000, founderJoins: false });
    admin = await acceptLink(t, org.inviteUrl!);
    other = await t.createOrg('business', { name: 'Other', adminEmail: 'other@example.com', rateLimitPerMinute: 1_000_000 });
    spec = (await t.request<OpenApi>('GET', 'openapi.json')).body;
    ajv = new Ajv2020({ strict: false, allErrors: false, formats: { binary: true } });
    addFormats(ajv);
    ajv.addSchema(spec as object, 'openapi');

    const key = (path: string, body: unknown) => t.request<{ data: { id: string } }>('POST', path, { apiKey: org.apiKey, body }).then((answer) => answer.body.data.id);
    const project = await createProject(t, org, 'Contract');
    ours.project = project.id;
    ours.alert = (await createAlert(t, org, { title: 'Contract', projectId: project.id })).id;
    ours.user = (await inviteUser(t, org, 'member@example.com')).id;
    ours.webhook = await key('webhooks', { name: 'w', url: 'https://example.com/hook', events: ['alert.created'] });
    ours.dataset = (await upload<{ data: { id: string } }>(t, org.apiKey, project.id, salesCsv, { query: { name: 'sales' } })).body.data.id;
    ours.dashboard = await key('dashboards', { projectId: project.id, name: 'Contract' });
    ours.export = await key('exports', { resource: 'alerts', format: 'csv' });
    ours.connection = await key('connections', { name: 'c', dbType: 'postgresql', host: 'db.example.com', port: 5432, database: 'd', username: 'u', password: 'p' });
    ours.token = await key('embed/tokens', { dashboardId: ours.dashboard });
    ours['api-key'] = (await admin.call<{ data: { id: string } }>('POST', 'api-keys', { name: 'contract' })).body.data.id;
    const theirProject = await createProject(t, other, 'Theirs');
    theirs.project = theirProject.id;
    theirs.alert = (await createAlert(t, other, { title: 'Theirs', projectId: theirProject.id })).id;
    theirs.user = (await inviteUser(t, other, 'them@example.com')).id;
    theirs.dataset = (await upload<{ data: { id: string } }>(t, other.apiKey, theirProject.id, salesCsv, { query: { name: 'sales' } })).body.data.id;
    theirs.dashboard = (await t.request<{ data: { id: string } }>('POST', 'dashboards', { apiKey: other.apiKey, body: { projectId: theirProject.id, name: 'Theirs' } })).body.data.id;
  });
  afterAll(() => t.close());

  it('declares every status and body that valid and hostile calls of every operation get', async () => {
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(60);
    // Deletions last, so that the other calls still find what they name.
    const deletions = all.filter(({ method }) => method === 'DELETE').sort((a, b) => Number(a.template === '/api/v1/projects/{id}') - Number(b.template === '/api/v1/projects/{id}'));
    const ordered = [...all.filter(({ method }) => method !== 'DELETE'), ...deletions];
    for (const { template, method, operation } of ordered) {
      const calls = callsFor(template, method, operation);
      const answers = await Promise.all(calls.filter((call) => call.label !== 'valid').map(send));
      calls.filter((call) => call.label !== 'valid').forEach((call, index) => check(call, operation, answers[index]));
      // The valid call runs alone, after the hostile ones, so none of them sees its change.
      const valid = calls.find((call) => call.label === 'valid')!;
      check(valid, operation, await send(valid));
    }
    expect(undeclared).toEqual([]);
    expect(invalidBodies).toEqual([]);
    const succeeded = [...validAnswers.values()].filter((status) => status < 300).length;
    expect(succeeded / validAnswers.size, JSON.stringify(Object.fromEntries(validAnswers))).toBeGreaterThan(0.7);
  });

  it('declares what the HTTP parser refuses on every operation: a header with a byte HTTP forbids, and headers too large', async () => {
    const url = new URL(t.baseUrl);
    const raw = (head: string) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolvePromise, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(head));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolvePromise({ status: Number(text.split(' ')[1]), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown> }));
      });
    const illegal = await raw(`GET /api/v1/projects HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\nAuthorization: Bearer ${org.apiKey}\r\n\r\n`);
    const large = await raw(`GET /api/v1/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`);
    expect([illegal.status, illegal.body.code, large.status, large.body.code]).toEqual([422, 'VALIDATION_ERROR', 431, 'HEADERS_TOO_LARGE']);
    const validateError = ajv.getSchema('openapi#/components/schemas/Error')!;
    expect([validateError(illegal.body), validateError(large.body)]).toEqual([true, true]);
    for (const { template, method, operation } of operations()) {
      expect(Object.keys(operation.responses ?? {}), `${method} ${template}`).toEqual(expect.arrayContaining(['408', '422', '431', '503']));
    }
  });

  it('replays an idempotent answer with the request id of the replay in both its body and its header', async () => {
    const body = { title: 'Theirs', severity: 'low', projectId: theirs.project };
    const headers = { 'idempotency-key': `replay-${kind}` };
    const first = await t.request<{ requestId: string }>('POST', 'alerts', { apiKey: org.apiKey, body, headers });
    const replay = await t.request<{ requestId: string }>('POST', 'alerts', { apiKey: org.apiKey, body, headers });
    expect([first.status, replay.status, replay.headers.get('idempotent-replayed')]).toEqual([404, 404, 'true']);
    expect(first.body.requestId).toBe(first.headers.get('x-request-id'));
    expect(replay.body.requestId).toBe(replay.headers.get('x-request-id'));
    expect(replay.body.requestId).not.toBe(first.body.requestId);
  });

  it('declares every media type the upload takes, each a file sent as it is, and a download as a file in every format', async () => {
    const content = spec.paths['/api/v1/projects/{id}/datasets'].post.requestBody!.content;
    const raw = Object.keys(content).filter((type) => type !== 'multipart/form-data' && !type.includes('spreadsheetml'));
    expect(raw.sort()).toEqual(['application/csv', 'application/octet-stream', 'text/csv', 'text/plain', 'text/tab-separated-values']);
    const project = await createProject(t, org, 'Uploads');
    for (const [index, type] of raw.entries()) {
      expect(content[type].schema, type).toMatchObject({ type: 'string', format: 'binary' });
      const uploaded = await upload<{ data: { rowCount: number } }>(t, org.apiKey, project.id, salesCsv.replaceAll(',', type.includes('tab') ? '\t' : ','), { contentType: type, query: { name: `upload ${index}` } });
      expect([type, uploaded.status, JSON.stringify(uploaded.body).includes('"rowCount":4')]).toEqual([type, 201, true]);
    }
    const download = spec.paths['/api/v1/exports/{id}/download'].get.responses!['200'].content!;
    expect(Object.keys(download).sort()).toEqual(['application/json', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv']);
    for (const [type, entry] of Object.entries(download)) expect(entry.schema, type).toMatchObject({ type: 'string', format: 'binary' });
  });
});
