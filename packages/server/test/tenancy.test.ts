import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import {
  type Alert,
  allPages,
  createAlert,
  createProject,
  type ErrorBody,
  inviteUser,
  orgSnapshot,
  type Project,
  type User,
} from './support/resources.js';

describe.each(databaseKinds())("another organization's resources on %s", (kind) => {
  let t: TestApp;
  let us: TestOrg;
  let them: TestOrg;
  let theirProject: Project;
  let theirAlert: Alert;
  let theirUser: User;
  let ourProject: Project;
  let ourAlert: Alert;

  beforeAll(async () => {
    t = await startTestApp(kind);
    us = await t.createOrg('business', { name: 'Us', rateLimitPerMinute: 100_000 });
    them = await t.createOrg('enterprise', { name: 'Them', adminEmail: 'them@example.com' });
    theirProject = await createProject(t, them, 'Theirs');
    theirAlert = await createAlert(t, them, { title: 'Their alert', severity: 'high', projectId: theirProject.id });
    theirUser = await inviteUser(t, them, 'their-member@example.com');
    await t.request('POST', `users/${theirUser.id}/activate`, { apiKey: them.apiKey });
    ourProject = await createProject(t, us, 'Ours');
    ourAlert = await createAlert(t, us, { title: 'Our alert', projectId: ourProject.id });
  });
  afterAll(() => t.close());

  const snapshot = (orgId: string) => orgSnapshot(t.database.db, orgId);

  it('answers 404 NOT_FOUND on every route that takes their id, and changes nothing on either side', async () => {
    const theirsBefore = await snapshot(them.orgId);
    const oursBefore = await snapshot(us.orgId);
    const routes: [string, string, unknown?][] = [
      ['GET', `projects/${theirProject.id}`],
      ['PATCH', `projects/${theirProject.id}`, { name: 'Hijacked' }],
      ['DELETE', `projects/${theirProject.id}`],
      ['GET', `alerts/${theirAlert.id}`],
      ['PATCH', `alerts/${theirAlert.id}`, { title: 'Hijacked', severity: 'critical' }],
      ['DELETE', `alerts/${theirAlert.id}`],
      ['POST', `alerts/${theirAlert.id}/acknowledge`],
      ['POST', `alerts/${theirAlert.id}/assign`, { userId: us.adminUserId }],
      ['POST', `alerts/${theirAlert.id}/assign`, { userId: theirUser.id }],
      ['POST', `alerts/${theirAlert.id}/resolve`],
      ['GET', `users/${theirUser.id}`],
      ['PATCH', `users/${theirUser.id}`, { role: 'viewer' }],
      ['POST', `users/${theirUser.id}/deactivate`],
      ['POST', `users/${theirUser.id}/activate`],
      ['GET', `users/${them.adminUserId}`],
      ['POST', `users/${them.adminUserId}/deactivate`],
      // Their ids inside our own requests.
      ['POST', 'alerts', { title: 'In their project', severity: 'low', projectId: theirProject.id }],
      ['POST', `alerts/${ourAlert.id}/assign`, { userId: theirUser.id }],
      ['POST', `alerts/${ourAlert.id}/assign`, { userId: them.adminUserId }],
    ];
    for (const [method, path, body] of routes) {
      const response = await t.request<ErrorBody>(method, path, { apiKey: us.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body, `${method} ${path}`).toEqual({
        error: expect.any(String),
        code: 'NOT_FOUND',
        requestId: response.headers.get('x-request-id'),
      });
    }
    expect(await snapshot(them.orgId)).toEqual(theirsBefore);
    expect(await snapshot(us.orgId)).toEqual(oursBefore);
  });

  it('the 404 for their id reads exactly like the 404 for an id that does not exist', async () => {
    const missing = 'alrt_01jd3v7f3ygc0x6m8pj6kq2e9r';
    const theirs = await t.request<ErrorBody>('GET', `alerts/${theirAlert.id}`, { apiKey: us.apiKey });
    const nobody = await t.request<ErrorBody>('GET', `alerts/${missing}`, { apiKey: us.apiKey });
    expect(theirs.body.error).toBe(nobody.body.error);
  });

  it('lists and filters show only our own rows, even when filtered by their project', async () => {
    expect((await allPages<Project>(t, us, 'projects')).map((project) => project.id)).toEqual([ourProject.id]);
    expect((await allPages<Alert>(t, us, 'alerts')).map((alert) => alert.id)).toEqual([ourAlert.id]);
    expect(await allPages<Alert>(t, us, `alerts?projectId=${theirProject.id}`)).toEqual([]);
    expect((await allPages<User>(t, us, 'users')).map((user) => user.id)).toEqual([us.adminUserId]);
  });

  it('query parameters the API does not know are ignored, and their names never reach SQL', async () => {
    const ours: Record<string, string[]> = {
      projects: [ourProject.id],
      alerts: [ourAlert.id],
      users: [us.adminUserId!],
    };
    for (const name of ['1=1 OR 1', 'org_id', 'foo', "x') OR ('1'='1"]) {
      for (const [path, ids] of Object.entries(ours)) {
        const response = await t.request<{ data: { id: string }[] }>('GET', `${path}?${encodeURIComponent(name)}=1`, { apiKey: us.apiKey });
        expect(response.status, `${path} ?${name}`).toBe(200);
        expect(response.body.data.map((item) => item.id), `${path} ?${name}`).toEqual(ids);
      }
    }
  });

  it('a cursor made from their list is refused in ours with 422 naming the cursor', async () => {
    await createAlert(t, them, { title: 'Their second', projectId: theirProject.id });
    const theirPage = await t.request<{ meta: { nextCursor: string } }>('GET', 'alerts?limit=1', { apiKey: them.apiKey });
    const ours = await t.request<{ details: { field: string }[] }>('GET', `alerts?cursor=${theirPage.body.meta.nextCursor}`, { apiKey: us.apiKey });
    expect(ours.status).toBe(422);
    expect(ours.body.details).toEqual([{ field: 'cursor', message: 'is not a cursor this API returned' }]);
    const theirs = await t.request('GET', `alerts?cursor=${theirPage.body.meta.nextCursor}`, { apiKey: them.apiKey });
    expect(theirs.status).toBe(200);
  });

  it('their resources are untouched and still theirs', async () => {
    const alert = await t.request<{ data: Alert }>('GET', `alerts/${theirAlert.id}`, { apiKey: them.apiKey });
    expect(alert.body.data).toEqual(theirAlert);
    const user = await t.request<{ data: User }>('GET', `users/${theirUser.id}`, { apiKey: them.apiKey });
    expect(user.body.data).toMatchObject({ role: 'member', status: 'active' });
  });
});
