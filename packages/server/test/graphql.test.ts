import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { statementText } from '../src/db/named-statement.js';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { graphql } from './support/graphql.js';
import { isTheRequestsOwn } from './support/statement-count.js';
import { createAlert, createProject, eventsOf, inviteUser } from './support/resources.js';
import { repoRoot } from './support/processes.js';

describe.each(databaseKinds())('GraphQL over HTTP on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  const gql = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, apiKey = org.apiKey) =>
    graphql<T>(t.baseUrl, apiKey, query, variables);

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    other = await t.createOrg('enterprise', { name: 'Other', rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  describe('authentication, plans and the shared rate limit', () => {
    it('answers a missing or unknown key with 401 and a GraphQL body whose code is UNAUTHORIZED', async () => {
      for (const key of [undefined, `svc_live_${'0'.repeat(64)}`]) {
        const result = await graphql(t.baseUrl, key, '{ projects { id } }');
        expect(result.status).toBe(401);
        expect(result.body.errors?.[0]).toMatchObject({ message: expect.any(String), extensions: { code: 'UNAUTHORIZED' } });
        expect(result.body.data).toBeUndefined();
      }
    });

    it('answers an organization below Business with 403 PLAN_UPGRADE_REQUIRED', async () => {
      const free = await t.createOrg('team');
      const result = await gql('{ projects { id } }', undefined, free.apiKey);
      expect(result.status).toBe(403);
      expect(result.body.errors?.[0].extensions.code).toBe('PLAN_UPGRADE_REQUIRED');
    });

    it('counts REST and GraphQL requests against one per-organization counter, and answers 429 with the headers', async () => {
      const limited = await t.createOrg('business', { rateLimitPerMinute: 3 });
      const rest = await t.request('GET', 'projects', { apiKey: limited.apiKey });
      expect(rest.headers.get('x-ratelimit-remaining')).toBe('2');
      const first = await gql('{ projects { id } }', undefined, limited.apiKey);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('3');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      await t.request('GET', 'projects', { apiKey: limited.apiKey });
      const refused = await gql('{ projects { id } }', undefined, limited.apiKey);
      expect(refused.status).toBe(429);
      expect(refused.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await t.request('GET', 'projects', { apiKey: limited.apiKey })).status).toBe(429);
    });
  });

  describe('queries', () => {
    it('lists projects and alerts with uppercase enums, filters and relations', async () => {
      const project = await createProject(t, org, 'Payments');
      const quiet = await createProject(t, org, 'Quiet');
      const user = await inviteUser(t, org, 'oncall@example.com');
      await t.request('POST', `users/${user.id}/activate`, { apiKey: org.apiKey });
      const critical = await createAlert(t, org, { projectId: project.id, title: 'Checkout down', severity: 'critical', value: '0 rps' });
      await createAlert(t, org, { projectId: quiet.id, title: 'Disk at 80%', severity: 'low' });
      await t.request('POST', `alerts/${critical.id}/assign`, { apiKey: org.apiKey, body: { userId: user.id } });

      const result = await gql<{ alerts: Record<string, unknown>[] }>(
        `query Critical($projectId: ID) {
          alerts(filter: { projectId: $projectId, severity: CRITICAL, status: ACTIVE }) {
            id title severity status value createdAt project { id name } assignee { email role status }
          }
        }`,
        { projectId: project.id },
      );
      expect(result.status).toBe(200);
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data?.alerts).toEqual([
        {
          id: critical.id,
          title: 'Checkout down',
          severity: 'CRITICAL',
          status: 'ACTIVE',
          value: '0 rps',
          createdAt: critical.createdAt,
          project: { id: project.id, name: 'Payments' },
          assignee: { email: 'oncall@example.com', role: 'MEMBER', status: 'ACTIVE' },
        },
      ]);

      const projects = await gql<{ projects: { name: string; alerts: { title: string }[] }[] }>(
        '{ projects(first: 2) { name alerts(severity: LOW) { title } } }',
      );
      expect(projects.body.data?.projects).toEqual([
        { name: 'Quiet', alerts: [{ title: 'Disk at 80%' }] },
        { name: 'Payments', alerts: [] },
      ]);
    });

    it('pages with first and after, where after is the last id read or the REST cursor', async () => {
      const project = await createProject(t, org, 'Paged');
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await createAlert(t, org, { projectId: project.id, title: `A${i}`, severity: 'info' }));
      const newestFirst = created.map((alert) => alert.id).reverse();
      const page = async (after?: string) =>
        (await gql<{ alerts: { id: string }[] }>('query ($p: ID, $after: String) { alerts(filter: {projectId: $p}, first: 2, after: $after) { id } }', { p: project.id, after })).body.data!.alerts.map((alert) => alert.id);
      expect(await page()).toEqual(newestFirst.slice(0, 2));
      expect(await page(newestFirst[1])).toEqual(newestFirst.slice(2, 4));
      const rest = await t.request<{ meta: { nextCursor: string } }>('GET', `alerts?projectId=${project.id}&limit=4`, { apiKey: org.apiKey });
      expect(await page(rest.body.meta.nextCursor)).toEqual(newestFirst.slice(4));
      const tooMany = await gql('{ alerts(first: 101) { id } }');
      expect(tooMany.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'first' }] });
    });

    it('answers the other lists and usage', async () => {
      const result = await gql<{ users: { email: string; role: string }[]; usage: { plan: string; limits: { requestsPerMinute: number } } }>(
        '{ users { email role } connections { id } history { id } webhooks { id } datasets { id } usage { plan limits { requestsPerMinute } totals { apiRequests } } }',
      );
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data?.users).toContainEqual({ email: 'admin@example.com', role: 'ADMIN' });
      expect(result.body.data?.usage).toMatchObject({ plan: 'business', limits: { requestsPerMinute: 100_000 } });
    });

    it('serves queries over GET, but not mutations', async () => {
      const url = `${t.baseUrl}/api/graphql?query=${encodeURIComponent('{ projects(first: 1) { id } }')}`;
      const get = await fetch(url, { headers: { authorization: `Bearer ${org.apiKey}` } });
      expect(get.status).toBe(200);
      expect(((await get.json()) as { data: { projects: unknown[] } }).data.projects).toHaveLength(1);
      const mutation = await fetch(`${t.baseUrl}/api/graphql?query=${encodeURIComponent('mutation { deleteProject(id: "proj_x") }')}`, {
        headers: { authorization: `Bearer ${org.apiKey}` },
      });
      expect(mutation.status).toBe(405);
    });
  });

  describe('errors', () => {
    it('answers a missing or foreign id with null and NOT_FOUND', async () => {
      const foreign = await createProject(t, other, 'Theirs');
      const result = await gql<{ project: null }>('query ($id: ID!) { project(id: $id) { id name } }', { id: foreign.id });
      expect(result.status).toBe(200);
      expect(result.body.data).toEqual({ project: null });
      expect(result.body.errors).toEqual([
        { message: 'No such project.', locations: [{ line: 1, column: 20 }], path: ['project'], extensions: { code: 'NOT_FOUND' } },
      ]);
    });

    it('refuses invalid input with VALIDATION_ERROR and the same per-field details as REST', async () => {
      const project = await createProject(t, org, 'Validated');
      const input = { projectId: project.id, title: 'x'.repeat(501), severity: 'high', area: 'y'.repeat(201) };
      const rest = await t.request<{ details: unknown }>('POST', 'alerts', { apiKey: org.apiKey, body: input });
      const result = await gql('mutation ($input: CreateAlertInput!) { createAlert(input: $input) { id } }', {
        input: { ...input, severity: 'HIGH' },
      });
      expect(result.body.data).toBeNull();
      expect(result.body.errors?.[0].extensions).toEqual({ code: 'VALIDATION_ERROR', details: rest.body.details });
      expect(rest.body.details).toEqual([
        { field: 'title', message: expect.any(String) },
        { field: 'area', message: expect.any(String) },
      ]);
      const wrongType = await gql('mutation { createAlert(input: { title: "t", severity: SEVERE, projectId: "p" }) { id } }');
      expect(wrongType.body.errors?.[0].extensions.code).toBe('VALIDATION_ERROR');
    });

    it('answers an illegal alert move with CONFLICT and an unconfigured AI with SERVICE_UNAVAILABLE, never with internals', async () => {
      const project = await createProject(t, org, 'Moves');
      const alert = await createAlert(t, org, { projectId: project.id, title: 'Flapping', severity: 'medium' });
      const resolve = 'mutation ($id: ID!) { resolveAlert(id: $id) { status resolvedAt } }';
      expect((await gql(resolve, { id: alert.id })).body.data).toEqual({ resolveAlert: { status: 'RESOLVED', resolvedAt: expect.any(String) } });
      const again = await gql(resolve, { id: alert.id });
      expect(again.body.errors?.[0]).toMatchObject({ message: 'An alert that is resolved cannot be resolved.', extensions: { code: 'CONFLICT' } });
      const ask = await gql('mutation ($p: ID!) { askAI(input: { message: "How many?", projectId: $p }) { answer } }', { p: project.id });
      expect(ask.body.errors?.[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      const text = JSON.stringify([again.body, ask.body]);
      expect(text).not.toMatch(/\bat .*\.ts:\d+|stack|node_modules/);
    });

    it('answers a repeated query, compiled after its first run, exactly as the first time: data, nulls and errors', async () => {
      const project = await createProject(t, org, 'Repeated');
      const alert = await createAlert(t, org, { projectId: project.id, title: 'Again and again', severity: 'critical' });
      const foreign = await createProject(t, other, 'Not yours');
      const cases: [string, Record<string, unknown> | undefined][] = [
        ['query ($id: ID!) { alert(id: $id) { id severity status project { name } assignee { email } } }', { id: alert.id }],
        ['query ($id: ID!) { project(id: $id) { id name } }', { id: foreign.id }],
        ['query ($id: ID!) { projects(first: 5) { id } project(id: $id) { alerts(first: 2) { title severity } } }', { id: project.id }],
        ['{ projects(first: 100) { alerts(first: 100) { id } } }', undefined],
      ];
      for (const [query, variables] of cases) {
        const first = await gql(query, variables);
        expect(first.body.errors?.[0].extensions.code ?? first.body.data, query).toBeTruthy();
        for (let run = 0; run < 3; run++) expect((await gql(query, variables)).body, query).toEqual(first.body);
      }
    });
  });

  describe('mutations run the REST services', () => {
    it('creates, updates and deletes projects and alerts with their events', async () => {
      const created = await gql<{ createProject: { id: string; name: string; area: string } }>(
        'mutation { createProject(input: { name: "Search", area: "web" }) { id name area } }',
      );
      const projectId = created.body.data!.createProject.id;
      expect(created.body.data?.createProject).toEqual({ id: expect.stringMatching(/^proj_/), name: 'Search', area: 'web' });
      const updated = await gql('mutation ($id: ID!) { updateProject(id: $id, input: { description: "Full-text" }) { description area } }', { id: projectId });
      expect(updated.body.data).toEqual({ updateProject: { description: 'Full-text', area: 'web' } });

      const alert = await gql<{ createAlert: { id: string } }>(
        'mutation ($p: ID!) { createAlert(input: { projectId: $p, title: "Slow", severity: CRITICAL, threshold: "800 ms" }) { id status severity threshold project { name } } }',
        { p: projectId },
      );
      const alertId = alert.body.data!.createAlert.id;
      expect(alert.body.data?.createAlert).toMatchObject({ status: 'ACTIVE', severity: 'CRITICAL', threshold: '800 ms', project: { name: 'Search' } });
      const steps = await gql(
        `mutation ($id: ID!, $user: ID!) {
          updateAlert(id: $id, input: { severity: HIGH }) { severity }
          acknowledgeAlert(id: $id) { status }
          assignAlert(id: $id, userId: $user) { assignee { email } }
        }`,
        { id: alertId, user: org.adminUserId },
      );
      expect(steps.body).toEqual({
        data: { updateAlert: { severity: 'HIGH' }, acknowledgeAlert: { status: 'ACKNOWLEDGED' }, assignAlert: { assignee: { email: 'admin@example.com' } } },
      });
      expect((await gql('mutation ($id: ID!) { deleteAlert(id: $id) }', { id: alertId })).body.data).toEqual({ deleteAlert: true });
      expect((await gql('mutation ($id: ID!) { deleteProject(id: $id) }', { id: projectId })).body.data).toEqual({ deleteProject: true });

      const events = (await eventsOf(t, org.orgId)).filter((event) => [projectId, alertId].includes(event.data.id as string)).map((event) => event.type);
      expect(events).toEqual([
        'project.created', 'project.updated', 'alert.created', 'alert.critical', 'alert.acknowledged', 'alert.assigned', 'alert.deleted', 'project.deleted',
      ]);
    });

    it('shows a webhook secret only in the answer to createWebhook', async () => {
      const created = await gql<{ createWebhook: { id: string; secret: string; events: string[]; isActive: boolean } }>(
        'mutation { createWebhook(input: { name: "Ops", url: "https://hooks.example.com/vigil", events: ["alert.created"] }) { id secret events isActive } }',
      );
      expect(created.body.data?.createWebhook).toMatchObject({ secret: expect.stringMatching(/^whsec_/), events: ['alert.created'], isActive: true });
      const read = await gql('query ($id: ID!) { webhook(id: $id) { secret } webhooks { secret } }', { id: created.body.data!.createWebhook.id });
      expect(read.body.data).toEqual({ webhook: { secret: null }, webhooks: [{ secret: null }] });
      const refused = await gql('mutation { createWebhook(input: { name: "Local", url: "http://127.0.0.1/", events: ["alert.created"] }) { id } }');
      expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });

  describe('limits', () => {
    it('refuses a query over depth, aliases, cost, size or batch before it runs, with QUERY_TOO_COMPLEX', async () => {
      const deep = `{ alerts { project { alerts { project { alerts { project { alerts { project { alerts { project { alerts { id } } } } } } } } } } } }`;
      const aliases = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: usage { plan }`).join(' ')} }`;
      const costly = '{ projects(first: 100) { alerts(first: 100) { id } } }';
      const large = `{ projects { id } } # ${'x'.repeat(20_001)}`;
      for (const query of [deep, aliases, costly, large]) {
        const result = await gql(query);
        expect(result.status).toBe(200);
        expect(result.body.errors?.[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
        expect(result.body.data ?? null).toBeNull();
      }
      const cheaper = await gql('{ projects(first: 10) { alerts(first: 10) { id } } }');
      expect(cheaper.body.errors).toBeUndefined();
      const batch = await fetch(`${t.baseUrl}/api/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(Array.from({ length: 11 }, () => ({ query: '{ usage { plan } }' }))),
      });
      expect(((await batch.json()) as { errors: { extensions: { code: string } }[] }[])[0].errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    });

    it('does not create anything for a refused mutation', async () => {
      const before = (await eventsOf(t, org.orgId)).length;
      const names = Array.from({ length: 31 }, (_, i) => `p${i}: createProject(input: { name: "P${i}" }) { id }`).join(' ');
      const result = await gql(`mutation { ${names} }`);
      expect(result.body.errors?.[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect((await eventsOf(t, org.orgId)).length).toBe(before);
    });

    it('answers batched operations, and the standard introspection query', async () => {
      const batch = await fetch(`${t.baseUrl}/api/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ query: '{ usage { plan } }' }, { query: '{ users(first: 1) { role } }' }]),
      });
      expect(await batch.json()).toEqual([{ data: { usage: { plan: 'business' } } }, { data: { users: [{ role: expect.any(String) }] } }]);
      const introspection = await gql<{ __schema: { types: { name: string }[] } }>(getIntrospectionQuery());
      expect(introspection.body.errors).toBeUndefined();
      expect(introspection.body.data?.__schema.types.map((type) => type.name)).toContain('AlertSeverity');
    });
  });

  describe('batching', () => {
    it('reads projects { alerts { assignee { email } } } with the same number of SQL statements for 2 or 20 projects', async () => {
      const counted = await t.createOrg('business', { name: 'Counted', rateLimitPerMinute: 100_000 });
      const members = [];
      for (let i = 0; i < 3; i++) {
        const user = await inviteUser(t, counted, `m${i}@example.com`);
        await t.request('POST', `users/${user.id}/activate`, { apiKey: counted.apiKey });
        members.push(user.id);
      }
      for (let p = 0; p < 20; p++) {
        const project = await createProject(t, counted, `P${p}`);
        for (let a = 0; a < 3; a++) {
          const alert = await createAlert(t, counted, { projectId: project.id, title: `A${a}`, severity: 'info' });
          await t.request('POST', `alerts/${alert.id}/assign`, { apiKey: counted.apiKey, body: { userId: members[(p + a) % 3] } });
        }
      }
      const statements = async (first: number) => {
        const spy = vi.spyOn(t.database.db, 'query');
        const result = await gql<{ projects: { alerts: { assignee: { email: string } }[] }[] }>(
          'query ($first: Int) { projects(first: $first) { name alerts { title assignee { email } } } }',
          { first },
          counted.apiKey,
        );
        const own = spy.mock.calls.map(([sql]) => statementText(sql)).filter(isTheRequestsOwn);
        spy.mockRestore();
        expect(result.body.data?.projects).toHaveLength(first);
        expect(result.body.data?.projects.flatMap((project) => project.alerts)).toHaveLength(first * 3);
        return own;
      };
      const forTwo = await statements(2);
      const forTwenty = await statements(20);
      expect(forTwenty, forTwenty.join('\n---\n')).toHaveLength(forTwo.length);
      expect(forTwenty, forTwenty.join('\n---\n')).toHaveLength(3);
    });
  });

  it('serves the SDL, which is the one committed file it is built from', async () => {
    const response = await fetch(`${t.baseUrl}/api/graphql/schema.graphql`);
    expect(response.status).toBe(200);
    const served = await response.text();
    expect(served).toContain('type Query');
    expect(served).toBe(await readFile(path.join(repoRoot, 'packages/server/src/graphql/schema.graphql'), 'utf8'));
  });

  it('is the same for the REST list it stands for', async () => {
    const rest = await t.request<{ data: { id: string }[] }>('GET', 'alerts?limit=5', { apiKey: org.apiKey });
    const viaGraphql = await gql<{ alerts: { id: string }[] }>('{ alerts(first: 5) { id } }');
    expect(viaGraphql.body.data?.alerts).toEqual(rest.body.data.map((alert) => ({ id: alert.id })));
  });
});

