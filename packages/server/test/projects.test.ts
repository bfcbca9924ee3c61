import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import type { Project } from './support/resources.js';

describe.each(databaseKinds())('projects on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
  });
  afterAll(() => t.close());

  const events = async (orgId: string, type: string) =>
    t.database.db.query<{ data: { id: string } }>('SELECT data FROM events WHERE org_id = $1 AND type = $2 ORDER BY id', [orgId, type]);

  it('creates, reads, updates and deletes a project, with one event for each change', async () => {
    const created = await t.request<{ data: Project }>('POST', 'projects', {
      apiKey: org.apiKey,
      body: { name: 'Checkout', area: 'payments', description: 'Card flows' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Checkout', area: 'payments', description: 'Card flows' });
    expect(created.body.data.id).toMatch(/^proj_[0-9a-z]{26}$/);
    expect(created.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.body.data.id;

    const fetched = await t.request<{ data: Project }>('GET', `projects/${id}`, { apiKey: org.apiKey });
    expect(fetched.body.data).toEqual(created.body.data);

    const updated = await t.request<{ data: Project }>('PATCH', `projects/${id}`, { apiKey: org.apiKey, body: { area: null, name: 'Checkout v2' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Checkout v2', area: null, description: 'Card flows' });

    const deleted = await t.request('DELETE', `projects/${id}`, { apiKey: org.apiKey });
    expect(deleted.status).toBe(204);
    expect((await t.request('GET', `projects/${id}`, { apiKey: org.apiKey })).status).toBe(404);

    expect((await events(org.orgId, 'project.created')).map((e) => e.data.id)).toEqual([id]);
    expect((await events(org.orgId, 'project.updated')).map((e) => e.data.id)).toEqual([id]);
    expect((await events(org.orgId, 'project.deleted')).map((e) => e.data.id)).toEqual([id]);
  });

  it("answers 404 for another organization's project on every route, and changes nothing", async () => {
    const theirs = await t.request<{ data: Project }>('POST', 'projects', { apiKey: other.apiKey, body: { name: 'Secret' } });
    const id = theirs.body.data.id;
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Hijacked' }], ['DELETE']] as const) {
      const response = await t.request('' + method, `projects/${id}`, { apiKey: org.apiKey, body });
      expect(response.status, method).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
    }
    const list = await t.request<{ data: Project[] }>('GET', 'projects', { apiKey: org.apiKey });
    expect(list.body.data.map((p) => p.id)).not.toContain(id);
    const still = await t.request<{ data: Project }>('GET', `projects/${id}`, { apiKey: other.apiKey });
    expect(still.body.data.name).toBe('Secret');
  });

  it('rejects an empty name, unknown fields and an empty update with per-field details', async () => {
    const empty = await t.request<{ code: string; details: { field: string }[] }>('POST', 'projects', { apiKey: org.apiKey, body: { name: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.details.map((d) => d.field)).toEqual(['name']);
    const unknown = await t.request<{ details: { field: string; message: string }[] }>('POST', 'projects', {
      apiKey: org.apiKey,
      body: { name: 'x', owner: 'me' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.details).toEqual([{ field: 'owner', message: 'is not a known field' }]);
    const project = await t.request<{ data: Project }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Keep' } });
    const noChange = await t.request('PATCH', `projects/${project.body.data.id}`, { apiKey: org.apiKey, body: {} });
    expect(noChange.status).toBe(422);
  });
});
