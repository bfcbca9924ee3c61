import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventName, eventNames } from '../src/events/catalog.js';
import { recordEvent } from '../src/events/outbox.js';
import { ManualClock } from '../src/platform/clock.js';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';

interface Webhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  disabledReason: string | null;
  secret?: string;
}

interface ErrorBody {
  error: string;
  code: string;
}

// A public name that does not resolve on this machine: accepted at creation, checked again at every send.
const publicUrl = 'https://hooks.example.com/vigil';

describe.each(databaseKinds())('webhook API on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
  });
  afterAll(() => t.close());

  const create = (body: unknown, apiKey = org.apiKey) => t.request<{ data: Webhook } & ErrorBody>('POST', 'webhooks', { apiKey, body });
  const events = (orgId: string, type: string) =>
    t.database.db.query<{ data: Record<string, unknown> }>('SELECT data FROM events WHERE org_id = $1 AND type = $2 ORDER BY id', [orgId, type]);

  it('creates a webhook with a whsec_ secret shown once, and lists, reads, updates and deletes it with its events', async () => {
    const created = await create({ name: 'Ops', url: publicUrl, events: ['alert.created', 'alert.resolved'] });
    expect(created.status).toBe(201);
    const hook = created.body.data;
    expect(hook).toMatchObject({ name: 'Ops', url: publicUrl, events: ['alert.created', 'alert.resolved'], isActive: true, disabledReason: null });
    expect(hook.id).toMatch(/^whk_[0-9a-z]{26}$/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret!.slice(6), 'base64')).toHaveLength(32);
    expect(hook.createdAt).toBe('2026-03-01T12:00:00.000Z');

    const fetched = await t.request<{ data: Webhook }>('GET', `webhooks/${hook.id}`, { apiKey: org.apiKey });
    expect(fetched.body.data).not.toHaveProperty('secret');
    const { secret: _secret, ...shown } = hook;
    expect(fetched.body.data).toEqual(shown);
    const list = await t.request<{ data: Webhook[] }>('GET', 'webhooks', { apiKey: org.apiKey });
    expect(list.body.data.map((w) => w.id)).toContain(hook.id);
    expect(list.body.data.every((w) => !('secret' in w))).toBe(true);

    clock.advance(1000);
    const renamed = await t.request<{ data: Webhook }>('PATCH', `webhooks/${hook.id}`, {
      apiKey: org.apiKey,
      body: { name: 'Ops 2', events: ['project.created'] },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Ops 2', events: ['project.created'], isActive: true, updatedAt: '2026-03-01T12:00:01.000Z' });

    const disabled = await t.request<{ data: Webhook }>('PATCH', `webhooks/${hook.id}`, { apiKey: org.apiKey, body: { isActive: false } });
    expect(disabled.body.data).toMatchObject({ isActive: false, disabledReason: 'Disabled through the API.' });
    const enabled = await t.request<{ data: Webhook }>('PATCH', `webhooks/${hook.id}`, { apiKey: org.apiKey, body: { isActive: true } });
    expect(enabled.body.data).toMatchObject({ isActive: true, disabledReason: null });
    const unchanged = await t.request<{ data: Webhook }>('PATCH', `webhooks/${hook.id}`, { apiKey: org.apiKey, body: { isActive: true } });
    expect(unchanged.status).toBe(200);

    expect((await t.request('DELETE', `webhooks/${hook.id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await t.request('GET', `webhooks/${hook.id}`, { apiKey: org.apiKey })).status).toBe(404);

    const created_ = await events(org.orgId, 'webhook.created');
    expect(created_.map((e) => e.data)).toContainEqual(shown);
    expect((await events(org.orgId, 'webhook.disabled')).map((e) => e.data)).toEqual([disabled.body.data]);
    expect((await events(org.orgId, 'webhook.enabled')).map((e) => e.data)).toEqual([enabled.body.data]);
    expect((await events(org.orgId, 'webhook.deleted')).map((e) => e.data.id)).toEqual([hook.id]);
    const all = await t.database.db.query<{ data: unknown }>(`SELECT data FROM events WHERE type LIKE 'webhook.%'`);
    expect(JSON.stringify(all)).not.toContain('whsec_');
  });

  it('rotates the secret: a new one, returned once, and the webhook otherwise unchanged', async () => {
    const hook = (await create({ name: 'Rotating', url: publicUrl, events: ['project.created'] })).body.data;
    const rotated = await t.request<{ data: Webhook }>('POST', `webhooks/${hook.id}/rotate-secret`, { apiKey: org.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    expect(rotated.body.data).toMatchObject({ id: hook.id, name: 'Rotating', url: publicUrl });
    const stored = await t.database.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $1', [hook.id]);
    expect(stored[0].secret_sealed).not.toContain(rotated.body.data.secret!.slice(6));
  });

  it('rejects every bad field with 422 VALIDATION_ERROR and a sentence naming the reason', async () => {
    const cases: [body: Record<string, unknown>, reason: RegExp][] = [
      [{ name: 'x'.repeat(101), url: publicUrl, events: ['alert.created'] }, /name must NOT have more than 100 characters/],
      [{ name: '', url: publicUrl, events: ['alert.created'] }, /name must NOT have fewer than 1 characters/],
      [{ name: '   ', url: publicUrl, events: ['alert.created'] }, /name must contain a visible character/],
      [{ url: publicUrl, events: ['alert.created'] }, /name is required/],
      [{ name: 'x', url: 'http://hooks.example.com/', events: ['alert.created'] }, /url must use https:, not http:; .* start Vigil with VIGIL_WEBHOOK_ALLOW_PRIVATE=true\./],
      [{ name: 'x', url: 'https://127.0.0.1:4000/hook', events: ['alert.created'] }, /url points to 127\.0\.0\.1, a loopback address; .* start Vigil with VIGIL_WEBHOOK_ALLOW_PRIVATE=true\./],
      [{ name: 'x', url: 'ftp://hooks.example.com/', events: ['alert.created'] }, /url must use https:, not ftp:\.$/],
      [{ name: 'x', url: 'https://localhost/hook', events: ['alert.created'] }, /url points to localhost/],
      [{ name: 'x', url: 'https://169.254.169.254/latest', events: ['alert.created'] }, /link-local/],
      [{ name: 'x', url: 'https://0x7f000001/', events: ['alert.created'] }, /loopback/],
      [{ name: 'x', url: 'https://[::ffff:10.0.0.1]/', events: ['alert.created'] }, /IPv4-mapped/],
      [{ name: 'x', url: 'https://a:b@hooks.example.com/', events: ['alert.created'] }, /user name or password/],
      [{ name: 'x', url: 'hooks', events: ['alert.created'] }, /not a valid absolute URL/],
      [{ name: 'x', url: publicUrl, events: [] }, /events must NOT have fewer than 1 items/],
      [{ name: 'x', url: publicUrl, events: ['alert.created', 'alert.created'] }, /events must NOT have duplicate items/],
      [{ name: 'x', url: publicUrl, events: ['alert.exploded'] }, /events\.0 must be one of alert\.created/],
      [{ name: 'x', url: publicUrl, events: ['alert.created'], secret: 'whsec_mine' }, /secret is not a known field/],
    ];
    for (const [body, reason] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.code).toBe('VALIDATION_ERROR');
      expect(response.body.error, JSON.stringify(body)).toMatch(reason);
    }
    const hook = (await create({ name: 'Valid', url: publicUrl, events: eventNames })).body.data;
    expect(hook.events).toHaveLength(30);
    const badUpdate = await t.request<ErrorBody>('PATCH', `webhooks/${hook.id}`, { apiKey: org.apiKey, body: { url: 'https://10.0.0.8/' } });
    expect(badUpdate.status).toBe(422);
    expect(badUpdate.body.error).toMatch(/url points to 10\.0\.0\.8, a private address/);
    expect((await t.request('PATCH', `webhooks/${hook.id}`, { apiKey: org.apiKey, body: {} })).status).toBe(422);
  });

  it('events ["*"] subscribes to every event, including ones added to the catalog later', async () => {
    const everything = await create({ name: 'Everything', url: publicUrl, events: ['*'] });
    expect(everything.status).toBe(201);
    expect(everything.body.data.events).toEqual(['*']);
    const only = (await create({ name: 'Only alerts', url: publicUrl, events: ['alert.created'] })).body.data;
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Watched' } });
    // An event the catalog does not have yet, recorded as any other.
    const future = 'dashboard.future_event' as EventName;
    await t.database.db.transaction((tx) => recordEvent(tx, clock, org.orgId, future, {} as never));
    const delivered = async (hookId: string) =>
      (await t.request<{ data: { event: string }[] }>('GET', `webhooks/${hookId}/deliveries?limit=100`, { apiKey: org.apiKey })).body.data.map((d) => d.event);
    expect(await delivered(everything.body.data.id)).toEqual(expect.arrayContaining(['project.created', 'dashboard.future_event']));
    expect(await delivered(only.id)).toEqual([]);
    expect(project.status).toBe(201);
    const theirs = await t.request<{ data: { event: string }[] }>('GET', `webhooks/${everything.body.data.id}/deliveries`, { apiKey: other.apiKey });
    expect(theirs.status).toBe(404);
  });

  it("answers 404 for another organization's webhook and its deliveries on every route", async () => {
    const theirs = (await create({ name: 'Theirs', url: publicUrl, events: ['alert.created'] }, other.apiKey)).body.data;
    const routes: [string, string, unknown?][] = [
      ['GET', `webhooks/${theirs.id}`],
      ['PATCH', `webhooks/${theirs.id}`, { name: 'Mine now' }],
      ['DELETE', `webhooks/${theirs.id}`],
      ['POST', `webhooks/${theirs.id}/rotate-secret`],
      ['GET', `webhooks/${theirs.id}/deliveries`],
      ['GET', `webhooks/${theirs.id}/deliveries/dlv_01jd3v7f3ygc0x6m8pj6kq2e9r`],
      ['POST', `webhooks/${theirs.id}/deliveries/dlv_01jd3v7f3ygc0x6m8pj6kq2e9r/retry`],
      ['POST', `webhooks/${theirs.id}/recover`, { since: clock.now().toISOString() }],
    ];
    for (const [method, path, body] of routes) {
      const response = await t.request<ErrorBody>(method, path, { apiKey: org.apiKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    const still = await t.request<{ data: Webhook }>('GET', `webhooks/${theirs.id}`, { apiKey: other.apiKey });
    expect(still.body.data.name).toBe('Theirs');
  });

  it('refuses a recovery reaching back more than 14 days', async () => {
    const hook = (await create({ name: 'Recover', url: publicUrl, events: ['alert.created'] })).body.data;
    const since = new Date(clock.now().getTime() - 15 * 24 * 3600 * 1000).toISOString();
    const response = await t.request<ErrorBody>('POST', `webhooks/${hook.id}/recover`, { apiKey: org.apiKey, body: { since } });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/since must be within the last 14 days/);
  });
});
