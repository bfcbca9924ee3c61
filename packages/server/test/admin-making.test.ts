import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { graphql } from './support/graphql.js';
import { type ErrorBody, eventsOf, type One, type User } from './support/resources.js';
import { acceptLink, type SignedIn } from './support/sessions.js';

interface OpenApiOperation {
  operationId: string;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
}

/** Every REST operation whose body can set a role, read from the published contract. */
async function roleChangingOperations(t: TestApp): Promise<{ method: string; path: string }[]> {
  const document = (await t.request<{ paths: Record<string, Record<string, OpenApiOperation>> }>('GET', 'openapi.json')).body;
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation.requestBody?.content['application/json']?.schema.properties?.role !== undefined)
      .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/^\/api\/v1\//, '') })),
  );
}

describe.each(databaseKinds())('only an admin session makes an admin, on %s', (kind) => {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  let t: TestApp;
  let org: TestOrg;
  let admin: SignedIn;
  let memberId: string;
  let member: SignedIn;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { adminEmail: 'founder@example.com', founderJoins: false, rateLimitPerMinute: 100_000 });
    admin = await acceptLink(t, org.inviteUrl!);
    const invited = await admin.call<{ data: User & { inviteUrl: string } }>('POST', 'users', { email: 'member@example.com', role: 'member' });
    memberId = invited.body.data.id;
    member = await acceptLink(t, invited.body.data.inviteUrl);
  });
  afterAll(() => t.close());

  const withKey = <T = One<User>>(method: string, path: string, body: unknown, headers?: Record<string, string>) =>
    t.request<T>(method, path, { apiKey: org.apiKey, body, headers });
  const users = async () => (await withKey<{ data: User[] }>('GET', 'users?limit=100', undefined)).body.data;

  it('refuses every role-changing route to an API key asking for admin, naming the rule, and changes nothing', async () => {
    const operations = await roleChangingOperations(t);
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(['PATCH users/{id}', 'POST users']);
    const before = await users();
    const eventsBefore = (await eventsOf(t, org.orgId)).length;
    for (const { method, path } of operations) {
      const body = method === 'POST' ? { email: 'intruder@example.com', role: 'admin' } : { role: 'admin' };
      for (const headers of [{}, { 'idempotency-key': `admin-${method}` }] as Record<string, string>[]) {
        const refused = await withKey<ErrorBody>(method, path.replace('{id}', memberId), body, headers);
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.body).toMatchObject({ code: 'FORBIDDEN', requestId: expect.any(String) });
        expect(refused.body.error).toBe('Making an admin (inviting one, or changing a role to admin) needs an admin signed in to the console; an API key cannot do it.');
        expect(JSON.stringify(refused.body)).not.toContain('inviteUrl');
      }
    }
    expect(await users()).toEqual(before);
    expect((await eventsOf(t, org.orgId)).length).toBe(eventsBefore);
    // A refusal does not use up the Idempotency-Key: the same key then serves a request that may run.
    const member = await withKey('POST', 'users', { email: 'intruder@example.com', role: 'member' }, { 'idempotency-key': 'admin-POST' });
    expect(member.status).toBe(201);
  });

  it('still lets an API key invite members and viewers (with their link) and change roles below admin', async () => {
    for (const role of ['member', 'viewer']) {
      const invited = await withKey<{ data: User & { inviteUrl: string } }>('POST', 'users', { email: `key-${role}@example.com`, role });
      expect(invited.status).toBe(201);
      expect(invited.body.data).toMatchObject({ role, status: 'invited', inviteUrl: expect.stringContaining('/welcome#token=') });
    }
    const demoted = await withKey('PATCH', `users/${memberId}`, { role: 'viewer' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.data.role).toBe('viewer');
    const renamed = await withKey('PATCH', `users/${memberId}`, { name: 'Mia', role: 'member' });
    expect(renamed.body.data).toMatchObject({ name: 'Mia', role: 'member' });
  });

  it('lets an admin session make an admin, and refuses a member session', async () => {
    const byMember = await member.call<ErrorBody>('POST', 'users', { email: 'climber@example.com', role: 'admin' });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toContain('Your role (member)');
    const invited = await admin.call<{ data: User & { inviteUrl: string } }>('POST', 'users', { email: 'second-admin@example.com', role: 'admin' });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ role: 'admin', inviteUrl: expect.stringContaining('/welcome#token=') });
    const promoted = await admin.call<One<User>>('PATCH', `users/${memberId}`, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data.role).toBe('admin');
  });

  it('offers an API key no GraphQL mutation that sets a role', async () => {
    const introspection = await graphql<{ __schema: { mutationType: { fields: { name: string; args: { name: string; type: unknown }[] }[] } } }>(
      t.baseUrl,
      org.apiKey,
      '{ __schema { mutationType { fields { name args { name type { ...Type } } } } } } fragment Type on __Type { name kind ofType { name kind ofType { name kind } } }',
    );
    const inputTypes = new Set(JSON.stringify(introspection.body.data!.__schema.mutationType.fields).match(/"name":"[A-Za-z]+Input"/g) ?? []);
    const withRole = [];
    for (const typeName of inputTypes) {
      const name = typeName.slice('"name":"'.length, -1);
      const type = await graphql<{ __type: { inputFields: { name: string }[] } }>(t.baseUrl, org.apiKey, `{ __type(name: "${name}") { inputFields { name } } }`);
      if (type.body.data!.__type.inputFields.some((field) => field.name === 'role')) withRole.push(name);
    }
    const roleArguments = introspection.body.data!.__schema.mutationType.fields.filter((field) => field.args.some((arg) => arg.name === 'role'));
    expect(inputTypes.size).toBeGreaterThan(0);
    expect({ withRole, roleArguments }).toEqual({ withRole: [], roleArguments: [] });
  });
});
