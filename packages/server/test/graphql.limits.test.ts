import fc from 'fast-check';
import { buildSchema, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaSource } from '../src/graphql/executable-schema.js';
import { limits, SchemaLimits } from '../src/graphql/limits.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { graphql } from './support/graphql.js';

/** `levels` fragments, each spreading the next twice: 2^levels fields once expanded, a few hundred bytes written. */
function fragmentBomb(levels: number, leaf = 'usage { plan }', on = 'Query'): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on ${on} { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${levels} on ${on} { ${leaf} }`;
}

const meter = new SchemaLimits(buildSchema(schemaSource));

/** What a response serves, counted as the cost counts it: each field, and each item of a list, with what it holds. */
function served(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + 1 + served(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, field) => sum + (Array.isArray(field) ? served(field) : 1 + served(field)), 0);
}

describe.each(databaseKinds())('GraphQL limits on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  const gql = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) => graphql<T>(t.baseUrl, org.apiKey, query, variables);
  const refusal = async (query: string, variables?: Record<string, unknown>) => {
    const result = await gql(query, variables);
    expect(result.status, query.slice(0, 80)).toBe(200);
    expect(result.body.data, query.slice(0, 80)).toBeUndefined();
    return result.body.errors?.[0];
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    other = await t.createOrg('business', { name: 'Other', rateLimitPerMinute: 100_000 });
    // More than a default page everywhere, so that a page of 20 that was costed as 1 would show.
    const first = await t.app.services.projects.create(org.orgId, { name: 'P0' });
    for (let i = 1; i < 22; i++) await t.app.services.projects.create(org.orgId, { name: `P${i}` });
    for (let i = 0; i < 22; i++) await t.app.services.alerts.create(org.orgId, { projectId: first.id, title: `A${i}`, severity: 'low' });
  });
  afterAll(() => t.close());

  it('refuses the 30- and 40-level fragment bombs by their expanded size, and another organization is served meanwhile', async () => {
    for (const levels of [30, 40]) {
      const bombs = [gql(fragmentBomb(levels)), gql(fragmentBomb(levels, 'alerts { project { name } }', 'Query'))];
      const theirs = await t.request('GET', 'projects', { apiKey: other.apiKey });
      expect(theirs.status).toBe(200);
      for (const bomb of await Promise.all(bombs)) {
        expect(bomb.body.errors?.[0]).toMatchObject({
          message: expect.stringContaining(`at most ${limits.nodes} are allowed`),
          extensions: { code: 'QUERY_TOO_COMPLEX' },
        });
      }
    }
  });

  it('refuses a fragment that spreads itself as a validation error, before it is expanded', async () => {
    const error = await refusal('query { ...A } fragment A on Query { usage { plan } ...B } fragment B on Query { ...A }');
    expect(error).toMatchObject({ message: expect.stringContaining('within itself'), extensions: { code: 'VALIDATION_ERROR' } });
  });

  it('costs first: null, a first left out and a variable left null as the default page of 20', async () => {
    const aliased = Array.from({ length: 30 }, (_, i) => `a${i}: projects(first: null) { alerts(first: null) { project { alerts { id } } } }`).join(' ');
    expect(await refusal(`{ ${aliased} }`)).toMatchObject({ message: expect.stringContaining('would cost'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const nested = 'query ($n: Int) { projects(first: $n) { alerts(first: $n) { project { alerts(first: $n) { id } } } } }';
    // 20 × (1 + 20 × (1 + 1 + 20 × 2)) = 16,820
    expect(await refusal(nested, { n: null })).toMatchObject({ message: expect.stringContaining('would cost 16820'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    expect(await refusal(nested)).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX' } });
    expect(await refusal('query ($n: Int = 30) { projects(first: $n) { alerts(first: $n) { project { alerts(first: $n) { id } } } } }')).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    });
    const small = await gql<{ projects: unknown[] }>(nested, { n: 3 });
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data?.projects).toHaveLength(3);
  });

  it('sums the costs of a batch, and refuses every operation of a batch over its cost or size', async () => {
    const post = (body: unknown) =>
      fetch(`${t.baseUrl}/api/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] }[] }));
    const costly = { query: '{ projects(first: 100) { alerts(first: 9) { id } } }' }; // 1,900 each
    expect((await post([costly, costly])).body.map((each) => each.errors)).toEqual([undefined, undefined]);
    const over = await post([costly, costly, costly]);
    expect(over.status).toBe(200);
    expect(over.body).toHaveLength(3);
    for (const each of over.body) expect(each.errors?.[0]).toMatchObject({ message: expect.stringContaining('The batch would cost 5700'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const tooMany = await post(Array.from({ length: 11 }, () => ({ query: '{ usage { plan } }' })));
    expect(tooMany.body).toHaveLength(11);
    expect(tooMany.body[0].errors?.[0]).toMatchObject({ message: expect.stringContaining('at most 10 operations'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
  });

  it('refuses too many tokens, too many expanded fields and an introspection that nests its lists, naming the limit', async () => {
    const tokens = await refusal(`{ projects(after: [${'1 '.repeat(5_000)}]) { id } }`);
    expect(tokens).toMatchObject({ message: `The query has more than ${limits.tokens} tokens.`, extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const nested = await refusal(`{ projects(after: ${'['.repeat(4_000)}${']'.repeat(4_000)}) { id } }`);
    expect(nested).toMatchObject({ message: 'The query nests too deeply to be read.', extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const wide = await refusal(`query { ${'...F '.repeat(1_001)} } fragment F on Query { usage { plan } }`);
    expect(wide).toMatchObject({ message: expect.stringContaining('2002 fields'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    const nestedIntrospection = await refusal('{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }');
    expect(nestedIntrospection).toMatchObject({ message: expect.stringContaining('introspection would cost'), extensions: { code: 'QUERY_TOO_COMPLEX' } });
  });

  it('never costs a query below what its resolvers then serve', async () => {
    const firsts = fc.constantFrom('', '(first: null)', '(first: $n)', '(first: 1)', '(first: 7)', '(first: 21)', '(first: 25)');
    const projectFields = (alerts: string) => fc.subarray(['id', 'name', alerts, '__typename'], { minLength: 1 });
    const alertFields = fc.subarray(['id', 'title', 'severity', 'project { id name }', 'assignee { email }'], { minLength: 1 });
    const query = fc
      .record({
        top: firsts,
        inner: firsts,
        alertFields,
        alerts: firsts,
        users: fc.boolean(),
      })
      .chain((parts) =>
        projectFields(`alerts${parts.inner} { ${parts.alertFields.join(' ')} }`).map(
          (fields) => {
            const body = `{ projects${parts.top} { ${fields.join(' ')} } alerts${parts.alerts} { ${parts.alertFields.join(' ')} }${parts.users ? ' users { id }' : ''} }`;
            return body.includes('$n') ? `query ($n: Int) ${body}` : body;
          },
        ),
      );
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom(null, 2, 22), async (text, n) => {
        const cost = meter.measure(parse(text), undefined, { n }).cost;
        const result = await gql(text, text.includes('$n') ? { n } : undefined);
        if (cost > limits.cost) expect(result.body.errors?.[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
        else {
          expect(result.body.errors, text).toBeUndefined();
          expect(served(result.body.data), text).toBeLessThanOrEqual(cost);
        }
      }),
      { numRuns: 40 },
    );
  });
});
