import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consoleDist } from '../src/console/serve.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type ErrorBody, eventsOf } from './support/resources.js';
import { acceptLink, linkToken, signIn, type SignedIn } from './support/sessions.js';

const password = 'correct horse battery';
const day = 24 * 60 * 60 * 1000;

describe.each(databaseKinds())('console sign-in and roles on %s', (kind) => {
  const start = '2026-05-01T09:00:00.000Z';
  const clock = new ManualClock(start);
  let t: TestApp;
  let org: TestOrg;
  let admin: SignedIn;
  /** This test's founding admin: every test has an organization and people of its own. */
  let founder: string;
  let tests = 0;
  const newOrg = async () => {
    tests += 1;
    founder = `founder-${tests}@example.com`;
    org = await t.createOrg('business', { adminEmail: founder, founderJoins: false, rateLimitPerMinute: 100_000 });
  };

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
  });
  // Every test starts at the same time, whatever the tests before it did to the clock.
  beforeEach(async () => {
    clock.set(start);
    await newOrg();
    admin = await acceptLink(t, org.inviteUrl!, password);
  });
  afterAll(() => t.close());

  it('gives the founding admin a one-time link; accepting sets a password, joins, and opens a session', async () => {
    await newOrg();
    expect(org.inviteUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/welcome#token=[\w-]{43}$/);
    const described = await t.request('POST', 'session/link', { body: { token: linkToken(org.inviteUrl!) } });
    expect(described.body).toEqual({ data: { email: founder, orgName: 'Test Org', expiresAt: '2026-05-08T09:00:00.000Z' } });

    const tooShort = await t.request<ErrorBody>('POST', 'session/link/accept', { body: { token: linkToken(org.inviteUrl!), password: 'short' } });
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.details).toEqual([{ field: 'password', message: 'must be at least 10 characters' }]);

    admin = await acceptLink(t, org.inviteUrl!, password);
    expect(admin.setCookie).toMatch(/^vigil_session=[\w-]{43}; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax$/);
    const users = await t.request<{ data: { status: string }[] }>('GET', 'users', { apiKey: org.apiKey });
    expect(users.body.data[0].status).toBe('active');
    expect((await eventsOf(t, org.orgId, 'user.invited', 'user.joined')).map((event) => event.type)).toEqual(['user.invited', 'user.joined']);

    const again = await t.request<ErrorBody>('POST', 'session/link/accept', { body: { token: linkToken(org.inviteUrl!), password } });
    expect(again.status).toBe(404);
    expect(again.body.error).toContain('already used');
  });

  it('keeps only a hash of the session token, and answers who is signed in', async () => {
    const token = admin.cookie.split('=')[1];
    const stored = await t.database.db.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE org_id = $1', [org.orgId]);
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toContain(token);
    const me = await admin.call<{ data: { user: { email: string; role: string }; organization: { id: string }; csrfToken: string } }>('GET', 'session');
    expect(me.body.data).toMatchObject({ user: { email: founder, role: 'admin' }, organization: { id: org.orgId }, csrfToken: admin.csrfToken });
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });

  it('refuses a state-changing request without the CSRF token, and accepts it with the token', async () => {
    const forged = await t.request<ErrorBody>('POST', 'projects', { body: { name: 'Forged' }, headers: { cookie: admin.cookie } });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ code: 'FORBIDDEN', error: expect.stringContaining('CSRF') });
    const wrong = await admin.call<ErrorBody>('POST', 'projects', { name: 'Forged' }, { 'x-csrf-token': `${admin.csrfToken}x` });
    expect(wrong.status).toBe(403);
    expect((await admin.call('POST', 'projects', { name: 'Checkout' })).status).toBe(201);
  });

  it('lets an admin session manage API keys: shown once, usable against the API, listed with last use, revoked', async () => {
    const created = await admin.call<{ data: { id: string; apiKey: string; name: string; createdBy: string } }>('POST', 'api-keys', { name: 'Deploy bot' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Deploy bot', apiKey: expect.stringMatching(/^svc_live_[0-9a-f]{64}$/), createdBy: org.adminUserId });
    const projects = await t.request('GET', 'projects', { apiKey: created.body.data.apiKey });
    expect(projects.status).toBe(200);
    const list = await admin.call<{ data: Record<string, unknown>[] }>('GET', 'api-keys');
    const listed = list.body.data.find((key) => key.id === created.body.data.id)!;
    expect(listed).toMatchObject({ name: 'Deploy bot', revokedAt: null });
    expect(listed).not.toHaveProperty('apiKey');
    expect(JSON.stringify(list.body)).not.toContain(created.body.data.apiKey);

    expect((await admin.call('DELETE', `api-keys/${created.body.data.id}`)).status).toBe(204);
    expect((await t.request('GET', 'projects', { apiKey: created.body.data.apiKey })).status).toBe(401);
    const other = await t.createOrg('business', { adminEmail: `other-${tests}@example.com` });
    expect((await admin.call('DELETE', `api-keys/${other.keyId}`)).status).toBe(404);
  });

  it('refuses /api-keys to an API key, with 403 in the error format', async () => {
    for (const [method, path] of [['GET', 'api-keys'], ['POST', 'api-keys'], ['DELETE', `api-keys/${org.keyId}`]]) {
      const response = await t.request<ErrorBody>(method, path, { apiKey: org.apiKey, body: method === 'POST' ? { name: 'x' } : undefined });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body).toMatchObject({ code: 'FORBIDDEN', requestId: expect.any(String) });
    }
  });

  it('enforces each role on the server: admin manages, member works, viewer reads', async () => {
    const people: Record<string, SignedIn> = { admin };
    for (const role of ['member', 'viewer']) {
      const invited = await admin.call<{ data: { inviteUrl: string; status: string } }>('POST', 'users', { email: `${role}-${tests}@example.com`, role });
      expect(invited.status).toBe(201);
      expect(invited.body.data).toMatchObject({ status: 'invited', inviteUrl: expect.stringContaining('/welcome#token=') });
      people[role] = await acceptLink(t, invited.body.data.inviteUrl);
    }
    const project = (await admin.call<{ data: { id: string } }>('POST', 'projects', { name: 'Roles' })).body.data;
    const dashboard = (await admin.call<{ data: { id: string } }>('POST', 'dashboards', { projectId: project.id, name: 'Roles board' })).body.data;
    const attempts: [string, string, unknown, Record<string, number>][] = [
      ['GET', 'projects', undefined, { admin: 200, member: 200, viewer: 200 }],
      ['GET', 'webhooks', undefined, { admin: 200, member: 200, viewer: 200 }],
      ['POST', 'alerts', { title: 'Disk', severity: 'low', projectId: project.id }, { admin: 201, member: 201, viewer: 403 }],
      ['POST', 'projects', { name: 'More' }, { admin: 201, member: 201, viewer: 403 }],
      ['POST', 'webhooks', { name: 'h', url: 'https://example.com/h', events: ['alert.created'] }, { admin: 201, member: 403, viewer: 403 }],
      ['POST', 'users', { email: `x-${tests}@example.com`, role: 'viewer' }, { admin: 201, member: 403, viewer: 403 }],
      ['POST', 'connections', { name: 'c', dbType: 'postgresql', host: 'db.example.com', port: 5432, database: 'd', username: 'u', password: 'p' }, { admin: 201, member: 403, viewer: 403 }],
      ['GET', 'api-keys', undefined, { admin: 200, member: 403, viewer: 403 }],
      ['POST', 'api-keys', { name: 'k' }, { admin: 201, member: 403, viewer: 403 }],
      ['GET', `dashboards/${dashboard.id}/data`, undefined, { admin: 200, member: 200, viewer: 200 }],
      ['POST', 'dashboards', { projectId: project.id, name: 'Mine' }, { admin: 201, member: 201, viewer: 403 }],
      ['POST', 'embed/tokens', { dashboardId: dashboard.id }, { admin: 201, member: 201, viewer: 403 }],
      ['GET', `embed/tokens?dashboardId=${dashboard.id}`, undefined, { admin: 200, member: 200, viewer: 200 }],
      ['PATCH', 'embed/settings', { allowedOrigins: [] }, { admin: 200, member: 403, viewer: 403 }],
    ];
    for (const [method, path, body, expected] of attempts) {
      for (const [role, status] of Object.entries(expected)) {
        const response = await people[role].call<ErrorBody>(method, path, body);
        expect(response.status, `${role} ${method} ${path} ${JSON.stringify(response.body)}`).toBe(status);
        if (status === 403) expect(response.body.error).toContain(`Your role (${role})`);
      }
    }
    // A role change applies to the next request.
    const memberId = (await people.member.call<{ data: { user: { id: string } } }>('GET', 'session')).body.data.user.id;
    await admin.call('PATCH', `users/${memberId}`, { role: 'viewer' });
    expect((await people.member.call('POST', 'projects', { name: 'Demoted' })).status).toBe(403);

    // A deactivated user's sessions end at once.
    expect((await admin.call('POST', `users/${memberId}/deactivate`)).status).toBe(200);
    const ended = await people.member.call<ErrorBody>('GET', 'projects');
    expect(ended.status).toBe(401);
    expect(ended.body.error).toContain('session has ended');
  });

  it('throttles failed sign-ins per account, and a right password does not get through meanwhile', async () => {
    const viewer = `viewer-${tests}@example.com`;
    const invited = await admin.call<{ data: { inviteUrl: string } }>('POST', 'users', { email: viewer, role: 'viewer' });
    await acceptLink(t, invited.body.data.inviteUrl, password);
    const wrong = await t.request<ErrorBody>('POST', 'session', { body: { email: viewer, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('That email and password do not match an active account.');
    const nobody = await t.request<ErrorBody>('POST', 'session', { body: { email: 'nobody@example.com', password } });
    expect(nobody.body).toEqual(wrong.body.requestId ? { ...wrong.body, requestId: nobody.body.requestId } : wrong.body);
    for (let attempt = 2; attempt <= 5; attempt++) {
      await t.request('POST', 'session', { body: { email: viewer, password: 'not the password' } });
    }
    const throttled = await t.request<ErrorBody>('POST', 'session', { body: { email: viewer, password } });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('RATE_LIMITED');
    clock.advance(15 * 60 * 1000 + 1);
    expect((await signIn(t, viewer)).csrfToken).toBeTruthy();
  });

  it('slides the expiry of a used session for 14 days, and ends an unused one', async () => {
    const session = await signIn(t, founder);
    clock.advance(13 * day);
    const used = await session.call('GET', 'projects');
    expect(used.status).toBe(200);
    expect(used.headers.get('set-cookie')).toMatch(/^vigil_session=[\w-]+; Max-Age=1209600;/);
    clock.advance(13 * day);
    expect((await session.call('GET', 'projects')).status).toBe(200);
    clock.advance(14 * day + 1);
    expect((await session.call('GET', 'projects')).status).toBe(401);
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const session = await signIn(t, founder);
    const out = await session.call('DELETE', 'session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^vigil_session=; Max-Age=0;/);
    expect((await session.call('GET', 'session')).status).toBe(401);
  });

  it('gives a fresh reset link that replaces earlier ones and ends the user\'s sessions', async () => {
    const session = await signIn(t, founder);
    const first = await t.app.services.sessions.resetLink(founder.toUpperCase(), org.orgId);
    const second = await t.app.services.sessions.resetLink(founder, org.orgId);
    expect((await t.request('POST', 'session/link', { body: { token: linkToken(first.url) } })).status).toBe(404);
    await acceptLink(t, second.url, 'a brand new password');
    expect((await session.call('GET', 'projects')).status).toBe(401);
    expect((await t.request('POST', 'session', { body: { email: founder, password } })).status).toBe(401);
    expect((await signIn(t, founder, 'a brand new password')).cookie).toMatch(/^vigil_session=/);
  });

  it('lets people in on every plan: no plan gate and the session\'s own limit instead of the API\'s, while the key still gets 403', async () => {
    const free = await t.createOrg('free', { adminEmail: `free-${tests}@example.com`, founderJoins: false });
    const person = await acceptLink(t, free.inviteUrl!);
    const projects = await person.call('GET', 'projects');
    expect(projects.status).toBe(200);
    expect(projects.headers.get('x-ratelimit-limit')).toBe('600');
    expect((await t.request<ErrorBody>('GET', 'projects', { apiKey: free.apiKey })).body.code).toBe('PLAN_UPGRADE_REQUIRED');
  });
});

describe('the session cookie behind https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { config: { siteUrl: 'https://vigil.example.com' } });
  });
  afterAll(() => t.close());

  it('is marked Secure, and links use the site address', async () => {
    const org = await t.createOrg('business', { founderJoins: false });
    expect(org.inviteUrl).toMatch(/^https:\/\/vigil\.example\.com\/welcome#token=/);
    expect((await acceptLink(t, org.inviteUrl!)).setCookie).toContain('; Secure');
  });
});

describe('serving the console', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t.close());

  it('answers every page path with index.html, never cached, and hashed assets with a year of caching', async () => {
    for (const path of ['/', '/alerts', '/developers/api-keys', '/welcome']) {
      const page = await t.request<string>('GET', path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]{8}\.js">/);
    }
    const script = readdirSync(`${consoleDist}/assets`).find((name) => name.endsWith('.js'))!;
    const asset = await t.request<string>('GET', `/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await t.request('GET', '/assets/index-missing.js')).status).toBe(404);
  });

  it('never shadows the server paths', async () => {
    expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await t.request<ErrorBody>('GET', '/api/v1/nothing')).status).toBe(401);
    expect((await t.request<ErrorBody>('GET', '/embed/nothing')).body.code).toBe('NOT_FOUND');
    expect((await t.request('GET', '/api/v1/openapi.json')).status).toBe(200);
  });
});
