import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { createAlert, createProject } from './support/resources.js';

/** Cases sent to each database, drawn from all of them by a seeded shuffle: a few seconds' worth. */
const sample = 120;

interface Case {
  label: string;
  method?: 'GET' | 'POST';
  body?: string;
  query?: Record<string, string>;
  contentType?: string;
}

/** A small seeded generator, so that a failure names a case that can be sent again. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The classes of value a variable may receive: right, foreign, wrong in type, hostile. */
function valuesFor(type: GraphQLInputType, ids: { own: string; foreign: string }): unknown[] {
  const named = getNamedType(type);
  const hostile = ['a\u0000b', 'x'.repeat(100_000), '\uD800', '${jndi}', "' OR 1=1 --", -1, 1e300, true, { nested: [1] }, [], null];
  if (isEnumType(named)) return [named.getValues()[0].value, 'SEVERE', 'critical', 3, null];
  if (isInputObjectType(named)) {
    const valid = Object.fromEntries(Object.values(named.getFields()).map((field) => [field.name, valuesFor(field.type, ids)[0]]));
    return [valid, { ...valid, unknownField: 1 }, {}, 'text', [valid], { ...valid, projectId: ids.foreign }];
  }
  if (isScalarType(named) && named.name === 'Int') return [1, 0, 101, -5, 2 ** 31, 1.5, '10', null];
  if (isScalarType(named) && named.name === 'Boolean') return [true, 'yes', 0];
  if (isScalarType(named) && named.name === 'ID') return [ids.own, ids.foreign, 'proj_00000000000000000000000000', ...hostile];
  return ['Fuzzed', ...hostile];
}

/** A selection of every scalar field of a type, and one level into its object fields. */
function selectionOf(field: GraphQLField<unknown, unknown>, depth = 0): string {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return '';
  const fields = Object.values(named.getFields()).filter((inner) => depth < 1 || !isObjectType(getNamedType(inner.type)));
  return `{ __typename ${fields.map((inner) => `${inner.name} ${selectionOf(inner, depth + 1)}`).join(' ')} }`;
}

function operationCases(schema: GraphQLSchema, ids: { own: string; foreign: string }, next: () => number): Case[] {
  const cases: Case[] = [];
  const post = (label: string, payload: unknown) => cases.push({ label, body: JSON.stringify(payload) });
  for (const [kind, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    for (const field of Object.values(root!.getFields())) {
      const args: readonly GraphQLArgument[] = field.args;
      const declared = args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
      const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const document = `${kind}${declared ? ` (${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${selectionOf(field)} }`;
      const valid = Object.fromEntries(args.map((arg) => [arg.name, valuesFor(arg.type, ids)[0]]));
      post(`${field.name} valid`, { query: document, variables: valid });
      for (const arg of args) {
        for (const value of valuesFor(arg.type, ids)) post(`${field.name} ${arg.name}=${JSON.stringify(value)?.slice(0, 30)}`, { query: document, variables: { ...valid, [arg.name]: value } });
      }
      post(`${field.name} without variables`, { query: document });
      post(`${field.name} misspelled`, { query: document.replace(field.name, `${field.name}x`), variables: valid });
      post(`${field.name} with an unknown argument`, { query: document.replace(`${field.name}`, `${field.name}(unknown: 1)`) });
      post(`${field.name} under directives`, { query: `${kind} ($if: Boolean) { ${field.name} @include(if: $if) @skip(if: 3) { __typename } }`, variables: { if: 'yes' } });
      if (!isListType(field.type) && !(isNonNullType(field.type) && isListType(field.type.ofType))) continue;
      post(`${field.name} first null`, { query: `{ ${field.name}(first: null) { __typename } }` });
    }
  }
  const hostileDocuments = [
    `{ ${'projects { alerts { project { '.repeat(8)} id ${'} } } '.repeat(8)} }`,
    `query { ...A } ${Array.from({ length: 25 }, (_, i) => `fragment ${String.fromCharCode(65 + i)} on Query { ...${String.fromCharCode(66 + i)} ...${String.fromCharCode(66 + i)} }`).join(' ')} fragment Z on Query { usage { plan } }`,
    '{ __schema { types { fields { type { fields { type { name } } } } } } }',
    `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: usage { plan }`).join(' ')} }`,
    '{ projects(first: "ten") { id } }',
    '{ projects { id ',
    '{ alert(id: "alrt_\\u0000") { id } }',
    'query A { usage { plan } } query B { usage { plan } }',
    'subscription { alertCreated { id } }',
    '',
    '{ __typename @unknown }',
    `{ ${'__typename '.repeat(1_500)} }`,
  ];
  for (const query of hostileDocuments) post(`hostile ${query.slice(0, 40)}`, { query });
  const malformed: Case[] = [
    { label: 'not JSON', body: '{"query": ' },
    { label: 'JSON null', body: 'null' },
    { label: 'array of junk', body: '[1, "x", null, {"query": 3}]' },
    { label: 'variables as an array', body: JSON.stringify({ query: '{ usage { plan } }', variables: [1] }) },
    { label: 'text/plain', body: '{ usage { plan } }', contentType: 'text/plain' },
    { label: 'form', body: 'query=%7B%20usage%20%7B%20plan%20%7D%20%7D', contentType: 'application/x-www-form-urlencoded' },
    { label: 'latin-1 JSON', body: JSON.stringify({ query: '{ usage { plan } }' }), contentType: 'application/json; charset=latin1' },
    { label: 'GET mutation', method: 'GET', query: { query: 'mutation { deleteProject(id: "x") }' } },
    { label: 'GET bad variables', method: 'GET', query: { query: '{ usage { plan } }', variables: '{' } },
    { label: 'GET without query', method: 'GET', query: {} },
  ];
  cases.push(...malformed);
  // Shuffled, so that a sample reaches every kind of case (the seed is in a failure message).
  for (let i = cases.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [cases[i], cases[j]] = [cases[j], cases[i]];
  }
  return cases;
}

describe.each(databaseKinds())('GraphQL fuzzing over the introspected schema on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let ids: { own: string; foreign: string };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 1_000_000 });
    other = await t.createOrg('business', { name: 'Other', rateLimitPerMinute: 1_000_000 });
    const own = await createProject(t, org, 'Mine');
    await createAlert(t, org, { projectId: own.id, title: 'Mine', severity: 'high' });
    const foreign = await createProject(t, other, 'Theirs');
    ids = { own: own.id, foreign: foreign.id };
  });
  afterAll(() => t.close());

  it('answers valid, near-valid and hostile documents and requests without a 5xx, INTERNAL_ERROR or internals, while another organization is served', async () => {
    const introspection = await t.request<{ data: IntrospectionQuery }>('POST', '/api/graphql', { apiKey: org.apiKey, body: { query: getIntrospectionQuery() } });
    const schema = buildClientSchema(introspection.body.data);
    const seed = Date.now() % 100_000;
    const cases = operationCases(schema, ids, random(seed)).slice(0, sample);
    const problems: string[] = [];
    let sent = 0;
    let fuzzing = true;
    const send = async (fuzz: Case) => {
      const url = `${t.baseUrl}/api/graphql${fuzz.query ? `?${new URLSearchParams(fuzz.query)}` : ''}`;
      const response = await fetch(url, {
        method: fuzz.method ?? 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, ...(fuzz.body === undefined ? {} : { 'content-type': fuzz.contentType ?? 'application/json' }) },
        body: fuzz.body,
      });
      const text = await response.text();
      sent++;
      if (response.status >= 500) problems.push(`${fuzz.label}: HTTP ${response.status}`);
      if (text.includes('INTERNAL_ERROR')) problems.push(`${fuzz.label}: INTERNAL_ERROR`);
      if (/\bat .*\.(ts|js):\d+|node_modules/.test(text)) problems.push(`${fuzz.label}: internals in the answer`);
    };
    const workers = Array.from({ length: 4 }, async (_, worker) => {
      for (let index = worker; index < cases.length; index += 4) await send(cases[index]);
    });
    const theirs: number[] = [];
    const neighbour = (async () => {
      while (fuzzing) theirs.push((await t.request('GET', 'projects', { apiKey: other.apiKey })).status);
    })();
    await Promise.all(workers);
    fuzzing = false;
    await neighbour;
    expect(problems, `seed ${seed}`).toEqual([]);
    expect(sent).toBe(sample);
    expect(theirs.length).toBeGreaterThan(0);
    expect(new Set(theirs)).toEqual(new Set([200]));
    expect(t.logs.filter((line) => /"level":(5|6)\d/.test(line))).toEqual([]);
  });
});
