import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { allPages, type ErrorBody, eventsOf, inviteUser, type One, type User } from './support/resources.js';
import { acceptLink } from './support/sessions.js';

describe.each(databaseKinds())('users on %s', (kind) => {
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { adminEmail: 'founder@example.com', rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  const call = <T = One<User>>(method: string, path: string, body?: unknown, apiKey = org.apiKey) =>
    t.request<T>(method, path, { apiKey, body });
  const userEvents = async (orgId: string, id: string) =>
    (await eventsOf(t, orgId)).filter((event) => event.type.startsWith('user.') && event.data.id === id).map((event) => event.type);

  it('lists the founding admin and reads one user', async () => {
    const list = await call<{ data: User[] }>('GET', 'users');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: org.adminUserId,
        email: 'founder@example.com',
        name: null,
        role: 'admin',
        status: 'active',
        createdAt: '2026-04-01T09:00:00.000Z',
        updatedAt: '2026-04-01T09:00:00.000Z',
      },
    ]);
    const one = await call('GET', `users/${org.adminUserId}`);
    expect(one.body.data).toEqual(list.body.data[0]);
    expect((await call<ErrorBody>('GET', 'users/usr_01jd3v7f3ygc0x6m8pj6kq2e9r')).body.code).toBe('NOT_FOUND');
  });

  it('invites a user as invited, with one user.invited event, and refuses the same email twice', async () => {
    clock.set('2026-04-01T09:10:00.250Z');
    const invited = await call('POST', 'users', { email: 'Ana@Example.com', role: 'viewer', name: 'Ana' });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toEqual({
      id: expect.stringMatching(/^usr_[0-9a-z]{26}$/),
      email: 'Ana@Example.com',
      name: 'Ana',
      role: 'viewer',
      status: 'invited',
      createdAt: '2026-04-01T09:10:00.250Z',
      updatedAt: '2026-04-01T09:10:00.250Z',
      inviteUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/welcome#token=[\w-]{43}$/),
    });
    const { inviteUrl, ...user } = invited.body.data as User & { inviteUrl: string };
    const [event] = (await eventsOf(t, org.orgId, 'user.invited')).filter((e) => e.data.id === user.id);
    expect(event.data).toEqual(user);
    expect(JSON.stringify(event.data)).not.toContain(inviteUrl);

    for (const email of ['Ana@Example.com', 'ana@example.com', 'founder@example.com']) {
      const duplicate = await call<ErrorBody>('POST', 'users', { email, role: 'member' });
      expect(duplicate.status, email).toBe(409);
      expect(duplicate.body.code).toBe('CONFLICT');
    }
    // The founder's own invitation is the other user.invited of this organization.
    const invitations = (await eventsOf(t, org.orgId, 'user.invited')).map((event) => String(event.data.email).toLowerCase());
    expect(invitations).toEqual(['founder@example.com', 'ana@example.com']);
    expect((await allPages<User>(t, org, 'users')).filter((user) => user.email.toLowerCase() === 'ana@example.com').length).toBe(1);
  });

  it('the same email may belong to two organizations', async () => {
    const other = await t.createOrg('business', { adminEmail: 'founder@example.com' });
    const invited = await call('POST', 'users', { email: 'shared@example.com', role: 'member' }, other.apiKey);
    expect(invited.status).toBe(201);
    expect((await call('POST', 'users', { email: 'shared@example.com', role: 'member' })).status).toBe(201);
  });

  it('rejects a bad email, an unknown role and unknown fields with per-field details', async () => {
    const bad = await call<ErrorBody>('POST', 'users', { email: 'not-an-email', role: 'owner', team: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.details?.map((problem) => problem.field).sort()).toEqual(['email', 'role', 'team']);
    expect(bad.body.details?.find((problem) => problem.field === 'role')?.message).toBe('must be one of admin, member, viewer');
    const missing = await call<ErrorBody>('POST', 'users', {});
    expect(missing.body.details).toEqual([
      { field: 'email', message: 'is required' },
      { field: 'role', message: 'is required' },
    ]);
  });

  it('changes a role and a name, recording updatedAt', async () => {
    const user = await inviteUser(t, org, 'role@example.com', 'viewer');
    clock.set('2026-04-01T10:00:00.000Z');
    const changed = await call('PATCH', `users/${user.id}`, { role: 'member', name: 'Rolf' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ ...user, role: 'member', name: 'Rolf', updatedAt: '2026-04-01T10:00:00.000Z' });
    expect((await call('PATCH', `users/${user.id}`, { name: null })).body.data.name).toBeNull();
    expect((await call<ErrorBody>('PATCH', `users/${user.id}`, {})).status).toBe(422);
    expect((await call<ErrorBody>('PATCH', `users/${user.id}`, { role: 'root' })).status).toBe(422);
    expect((await call<ErrorBody>('PATCH', `users/${user.id}`, { status: 'active' })).body.details).toEqual([
      { field: 'status', message: 'is not a known field' },
    ]);
    expect((await call('GET', `users/${user.id}`)).body.data.role).toBe('member');
  });

  it('activates and deactivates, once each way, with an event for each change', async () => {
    const user = await inviteUser(t, org, 'cycle@example.com');
    clock.set('2026-04-01T11:00:00.000Z');
    const active = await call('POST', `users/${user.id}/activate`);
    expect(active.status).toBe(200);
    expect(active.body.data).toEqual({ ...user, status: 'active', updatedAt: '2026-04-01T11:00:00.000Z' });
    expect((await call<ErrorBody>('POST', `users/${user.id}/activate`)).status).toBe(409);

    clock.set('2026-04-01T11:30:00.000Z');
    const inactive = await call('POST', `users/${user.id}/deactivate`);
    expect(inactive.body.data).toEqual({ ...user, status: 'deactivated', updatedAt: '2026-04-01T11:30:00.000Z' });
    const again = await call<ErrorBody>('POST', `users/${user.id}/deactivate`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');

    const back = await call('POST', `users/${user.id}/activate`);
    expect(back.body.data.status).toBe('active');
    expect(await userEvents(org.orgId, user.id)).toEqual(['user.invited', 'user.activated', 'user.deactivated', 'user.activated']);
    const stored = (await eventsOf(t, org.orgId, 'user.deactivated')).find((event) => event.data.id === user.id);
    expect(stored?.data).toEqual(inactive.body.data);
  });

  it('an invitation can be withdrawn by deactivating it', async () => {
    const user = await inviteUser(t, org, 'withdrawn@example.com');
    expect((await call('POST', `users/${user.id}/deactivate`)).body.data.status).toBe('deactivated');
  });

  it('never lets the last active admin be demoted or deactivated', async () => {
    const solo = await t.createOrg('business', { adminEmail: 'solo@example.com', founderJoins: false });
    // Making an admin needs an admin session (docs/console.md); the key does the rest.
    const founder = await acceptLink(t, solo.inviteUrl!);
    const admin = solo.adminUserId!;
    const demote = await call<ErrorBody>('PATCH', `users/${admin}`, { role: 'member' }, solo.apiKey);
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('last active admin') });
    expect((await call<ErrorBody>('PATCH', `users/${admin}`, { role: 'viewer' }, solo.apiKey)).status).toBe(409);
    expect((await call<ErrorBody>('POST', `users/${admin}/deactivate`, undefined, solo.apiKey)).status).toBe(409);
    expect((await founder.call('PATCH', `users/${admin}`, { role: 'admin', name: 'Still admin' })).status).toBe(200);

    // An invited or deactivated admin does not count: nobody could sign in as them.
    const invitedAdmin = await founder.call<One<User>>('POST', 'users', { email: 'later@example.com', role: 'admin' });
    expect((await call<ErrorBody>('POST', `users/${admin}/deactivate`, undefined, solo.apiKey)).status).toBe(409);

    await call('POST', `users/${invitedAdmin.body.data.id}/activate`, undefined, solo.apiKey);
    const demoted = await call('PATCH', `users/${admin}`, { role: 'member' }, solo.apiKey);
    expect(demoted.status).toBe(200);
    expect(demoted.body.data.role).toBe('member');
    expect((await call<ErrorBody>('POST', `users/${invitedAdmin.body.data.id}/deactivate`, undefined, solo.apiKey)).status).toBe(409);

    const me = await call('GET', `users/${admin}`, undefined, solo.apiKey);
    expect(me.body.data).toMatchObject({ role: 'member', status: 'active' });
    expect(await userEvents(solo.orgId, admin)).toEqual(['user.invited', 'user.joined']);
  });

  it('keeps one active admin when two admins are deactivated at the same time', async () => {
    const pair = await t.createOrg('business', { adminEmail: 'one@example.com', founderJoins: false });
    const founder = await acceptLink(t, pair.inviteUrl!);
    const second = await founder.call<One<User>>('POST', 'users', { email: 'two@example.com', role: 'admin' });
    await call('POST', `users/${second.body.data.id}/activate`, undefined, pair.apiKey);

    for (let round = 0; round < 3; round += 1) {
      const admins = [pair.adminUserId!, second.body.data.id];
      const results = await Promise.all(admins.map((id) => call<ErrorBody>('POST', `users/${id}/deactivate`, undefined, pair.apiKey)));
      expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
      const users = await allPages<User>(t, pair, 'users?role=admin&status=active');
      expect(users.length).toBe(1);
      const deactivated = admins[results.findIndex((result) => result.status === 200)];
      await call('POST', `users/${deactivated}/activate`, undefined, pair.apiKey);
    }
  });

  it('filters the list by status and role', async () => {
    const filtered = await t.createOrg('business', { adminEmail: 'f@example.com' });
    const viewer = await inviteUser(t, filtered, 'v@example.com', 'viewer');
    const member = await inviteUser(t, filtered, 'm@example.com', 'member');
    await call('POST', `users/${member.id}/activate`, undefined, filtered.apiKey);
    const ids = async (query: string) => (await allPages<User>(t, filtered, `users${query}`)).map((user) => user.id);
    expect(await ids('')).toEqual([member.id, viewer.id, filtered.adminUserId]);
    expect(await ids('?status=invited')).toEqual([viewer.id]);
    expect(await ids('?status=active')).toEqual([member.id, filtered.adminUserId]);
    expect(await ids('?role=admin')).toEqual([filtered.adminUserId]);
    expect(await ids('?role=member&status=active')).toEqual([member.id]);
    expect((await call<ErrorBody>('GET', 'users?role=owner', undefined, filtered.apiKey)).status).toBe(422);
  });
});
