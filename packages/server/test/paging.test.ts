import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { type Alert, createAlert, createProject, type ErrorBody, inviteUser, type List, type Project } from './support/resources.js';

describe.each(databaseKinds())('lists and cursor paging on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  const original: Alert[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
    for (let index = 0; index < 55; index += 1) {
      original.push(await createAlert(t, org, { title: `Alert ${index}`, projectId: project.id }));
    }
  });
  afterAll(() => t.close());

  const list = <T = Alert>(path: string) => t.request<List<T>>('GET', path, { apiKey: org.apiKey });
  const newestFirst = () => original.map((alert) => alert.id).reverse();

  it('answers {data, meta} with 20 items by default, newest first', async () => {
    const page = await list('alerts');
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['data', 'meta']);
    expect(page.body.meta).toEqual({ limit: 20, hasMore: true, nextCursor: expect.any(String) });
    expect(page.body.data.map((alert) => alert.id)).toEqual(newestFirst().slice(0, 20));
  });

  it('accepts limits from 1 to 100 and refuses others with 422', async () => {
    const one = await list('alerts?limit=1');
    expect(one.body.data.map((alert) => alert.id)).toEqual(newestFirst().slice(0, 1));
    expect(one.body.meta).toMatchObject({ limit: 1, hasMore: true });

    const hundred = await list('alerts?limit=100');
    expect(hundred.body.data.map((alert) => alert.id)).toEqual(newestFirst());
    expect(hundred.body.meta).toEqual({ limit: 100, hasMore: false, nextCursor: null });

    for (const limit of ['0', '101', '-5', '2.5', 'ten', '']) {
      const bad = await t.request<ErrorBody>('GET', `alerts?limit=${limit}`, { apiKey: org.apiKey });
      expect(bad.status, `limit=${limit}`).toBe(422);
      expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'limit' }] });
    }
  });

  it('ends with hasMore false and a null cursor when the last page is exactly full', async () => {
    const first = await list('alerts?limit=50');
    const last = await list(`alerts?limit=5&cursor=${first.body.meta.nextCursor}`);
    expect(last.body.data.length).toBe(5);
    expect(last.body.meta).toEqual({ limit: 5, hasMore: false, nextCursor: null });
  });

  it('refuses a cursor it did not issue with 422 naming the cursor', async () => {
    const issued = (await list('alerts?limit=1')).body.meta.nextCursor as string;
    const [encodedId, mac] = issued.split('.');
    const otherId = Buffer.from(Buffer.from(encodedId, 'base64url').toString('utf8').replace(/.$/, (last) => (last === '0' ? '1' : '0')), 'utf8').toString('base64url');
    for (const cursor of ['garbage', 'bm90LWFuLWlk', 'x'.repeat(300), '%00', `${issued}AA`, `${issued}.x`, `${encodedId}AA.${mac}`, `${otherId}.${mac}`, encodedId]) {
      const bad = await t.request<ErrorBody>('GET', `alerts?cursor=${cursor}`, { apiKey: org.apiKey });
      expect(bad.status, cursor).toBe(422);
      expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'cursor' }] });
    }
  });

  it('pages through 55 alerts, 10 at a time, while more are created: each original once, none skipped', async () => {
    const seen: string[] = [];
    const addedMeanwhile: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { body: List<Alert> } = await list(`alerts?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((alert) => alert.id));
      cursor = page.body.meta.nextCursor;
      pages += 1;
      for (let index = 0; index < 3; index += 1) {
        addedMeanwhile.push((await createAlert(t, org, { title: `During page ${pages}`, projectId: project.id })).id);
      }
    } while (cursor);

    expect(pages).toBe(6);
    expect(seen).toEqual(newestFirst());
    expect(new Set(seen).size).toBe(55);
    expect(seen.filter((id) => addedMeanwhile.includes(id))).toEqual([]);

    const fresh = await list('alerts?limit=100');
    expect(fresh.body.data.slice(0, addedMeanwhile.length).map((alert) => alert.id)).toEqual([...addedMeanwhile].reverse());
  });

  it('a cursor stays valid when the item it points at is deleted', async () => {
    const first = await list('alerts?limit=3');
    const lastOnPage = first.body.data[2];
    expect((await t.request('DELETE', `alerts/${lastOnPage.id}`, { apiKey: org.apiKey })).status).toBe(204);
    const next = await list('alerts?limit=100&cursor=' + first.body.meta.nextCursor);
    expect(next.status).toBe(200);
    const all = await list('alerts?limit=100');
    expect(next.body.data[0].id).toBe(all.body.data[2].id);
  });

  it('projects and users page the same way', async () => {
    const own = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const projects: string[] = [];
    const users: string[] = [own.adminUserId!];
    for (let index = 0; index < 5; index += 1) {
      projects.push((await createProject(t, own, `P${index}`)).id);
      users.push((await inviteUser(t, own, `u${index}@example.com`)).id);
    }
    for (const [path, ids] of [
      ['projects', projects],
      ['users', users],
    ] as const) {
      const first = await t.request<List<{ id: string }>>('GET', `${path}?limit=2`, { apiKey: own.apiKey });
      expect(first.body.meta).toMatchObject({ limit: 2, hasMore: true });
      const rest = await t.request<List<{ id: string }>>('GET', `${path}?limit=100&cursor=${first.body.meta.nextCursor}`, {
        apiKey: own.apiKey,
      });
      expect(rest.body.meta).toEqual({ limit: 100, hasMore: false, nextCursor: null });
      expect([...first.body.data, ...rest.body.data].map((item) => item.id)).toEqual([...ids].reverse());
      expect((await t.request('GET', `${path}?limit=0`, { apiKey: own.apiKey })).status).toBe(422);
    }
  });

  it('an empty list has an empty page', async () => {
    const empty = await t.createOrg('business');
    const page = await t.request<List<Project>>('GET', 'projects', { apiKey: empty.apiKey });
    expect(page.body).toEqual({ data: [], meta: { limit: 20, hasMore: false, nextCursor: null } });
  });
});
