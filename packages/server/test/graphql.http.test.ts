import { request as httpRequest } from 'node:http';
import { GraphQLError } from 'graphql';
import { serverAudits } from 'graphql-http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatError } from '../src/graphql/errors.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';

interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
}

/** Log lines at error level or above (pino: 50). */
const errorLines = (logs: string[]) => logs.filter((line) => /"level":(5|6)\d/.test(line));

describe.each(databaseKinds())('GraphQL over HTTP, as its spec and its clients expect, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  const url = () => `${t.baseUrl}/api/graphql`;
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Body };
  };
  const get = async (query: Record<string, string>) => {
    const response = await fetch(`${url()}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const projectCount = async () => (await t.app.services.projects.list(org.orgId, { limit: 100 })).data.length;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  it("passes every MUST, SHOULD and MAY of graphql-http's server audits", async () => {
    const withKey = (input: RequestInfo | URL, init?: RequestInit) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${org.apiKey}` } });
    const failed = [];
    for (const audit of serverAudits({ url: url(), fetchFn: withKey })) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.name}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
    expect(errorLines(t.logs)).toEqual([]);
  });

  it('accepts variables: null and extensions: null over POST, GET and in a batch', async () => {
    const query = '{ usage { plan } }';
    const expected = { data: { usage: { plan: 'business' } } };
    expect((await post(JSON.stringify({ query, variables: null, extensions: null }))).body).toEqual(expected);
    expect((await get({ query, variables: 'null', extensions: 'null' })).body).toEqual(expected);
    const batch = await fetch(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ query, variables: null }, { query, extensions: null }]),
    });
    expect(await batch.json()).toEqual([expected, expected]);
  });

  it('answers malformed requests with 400 VALIDATION_ERROR, a GET mutation with 405, and logs no error', async () => {
    const malformed = ['{"query": ', 'null', '"{ usage { plan } }"', '{}', '{"query": 1}', '{"query": "{ usage { plan } }", "variables": "{}"}',
      '{"query": "{ usage { plan } }", "operationName": 3}', '{"query": "{ usage { plan } }", "extensions": []}'];
    for (const body of malformed) {
      const result = await post(body);
      expect(result.status, body).toBe(400);
      expect(result.body.errors?.[0].extensions.code, body).toBe('VALIDATION_ERROR');
      expect(result.body.data, body).toBeUndefined();
    }
    const wrongType = await post(JSON.stringify({ query: 'query ($n: Int) { projects(first: $n) { id } }', variables: { n: 'ten' } }));
    expect(wrongType).toMatchObject({ status: 200, body: { errors: [{ extensions: { code: 'VALIDATION_ERROR' } }] } });
    const strict = await post(JSON.stringify({ query: 'query ($n: Int) { projects(first: $n) { id } }', variables: { n: 'ten' } }), {
      accept: 'application/graphql-response+json',
    });
    expect(strict).toMatchObject({ status: 400, type: 'application/graphql-response+json; charset=utf-8' });
    const mutation = await get({ query: 'mutation { createProject(input: { name: "Over GET" }) { id } }' });
    expect(mutation.status).toBe(405);
    expect(mutation.body.errors?.[0].extensions.code).toBe('VALIDATION_ERROR');
    const subscription = await post(JSON.stringify({ query: 'subscription { alertCreated { id } }' }));
    expect(subscription.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('WebSocket'), extensions: { code: 'VALIDATION_ERROR' } });
    expect(await projectCount()).toBe(0);
    expect(errorLines(t.logs)).toEqual([]);
  });

  it('refuses a NUL character in an inline argument or a variable before any resolver runs', async () => {
    const inline = await post(JSON.stringify({ query: 'mutation { createProject(input: { name: "a\\u0000b" }) { id } }' }));
    const variable = await post(JSON.stringify({ query: 'mutation ($name: String!) { createProject(input: { name: $name }) { id } }', variables: { name: 'a\u0000b' } }));
    const lookup = await post(JSON.stringify({ query: 'query ($id: ID!) { project(id: $id) { id } }', variables: { id: 'proj_\u0000' } }));
    for (const [result, where] of [[inline, 'A string in the query'], [variable, 'The variable $name'], [lookup, 'The variable $id']] as const) {
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ errors: [{ message: `${where} must not contain the NUL character (\\u0000).`, extensions: { code: 'VALIDATION_ERROR' } }] });
    }
    expect((await post(JSON.stringify({ query: 'query ($id: ID!) { project(id: $id) { id } }', variables: { id: 'proj_\u0000' } }))).body).toEqual(lookup.body);
    expect(await projectCount()).toBe(0);
  });

  it('answers an automatic persisted query hash with PERSISTED_QUERY_NOT_SUPPORTED', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } };
    const result = await post(JSON.stringify({ extensions }));
    expect(result.body.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    const overGet = await get({ extensions: JSON.stringify(extensions) });
    expect(overGet.body.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });

  it('authenticates a POST that says Upgrade: websocket but is not an upgrade, like any other', async () => {
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(url(), { method: 'POST', headers: { 'content-type': 'application/json', upgrade: 'websocket', ...headers } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ query: '{ usage { plan } }' }));
      });
    const anonymous = await send({});
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body).errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(JSON.parse((await send({ authorization: `Bearer ${org.apiKey}` })).body)).toEqual({ data: { usage: { plan: 'business' } } });
    expect(errorLines(t.logs)).toEqual([]);
  });
});

describe('formatError', () => {
  it('never throws, whatever it is given', () => {
    const log = pino({ level: 'silent' });
    const hostile = Object.create(GraphQLError.prototype, { extensions: { get: () => { throw new Error('boom'); } } }) as GraphQLError;
    for (const error of [null, undefined, 'text', 42, {}, new Error('plain'), new GraphQLError('no extensions'), hostile]) {
      const formatted = formatError(error, log);
      expect(formatted.extensions?.code).toMatch(/^(VALIDATION_ERROR|INTERNAL_ERROR)$/);
      expect(JSON.stringify(formatted)).not.toMatch(/boom|plain|at .*\.ts/);
    }
  });
});
