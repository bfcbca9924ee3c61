import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { MemoryCounterStore, RateLimiter } from '../src/platform/rate-limit.js';
import { dropProjectData } from './support/ai.js';
import { ManualClock, startTestApp, testConfig, type TestApp, type TestOrg } from './support/app.js';
import { type CreatedEmbedToken, mintToken, seedDashboard, type SeededDashboard, type WidgetResult } from './support/dashboards.js';
import { eventually } from './support/data.js';
import { databaseKinds } from './support/databases.js';
import { docsExample, filledIn } from './support/docs-examples.js';
import type { ErrorBody, List, One } from './support/resources.js';

interface Embedded {
  id: string;
  name: string;
  theme: string | null;
  widgets: WidgetResult[];
}

describe.each(databaseKinds())('embed tokens and the embed API on %s', (kind) => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestOrg;
  let other: TestOrg;
  let seeded: SeededDashboard;
  let secondDashboardId: string;
  /** A second process on the same database: its caches are its own. */
  let second: { app: App; baseUrl: string; limiter: RateLimiter };

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business');
    other = await t.createOrg('enterprise', { name: 'Other' });
    seeded = await seedDashboard(t, org);
    const created = await t.request<One<{ id: string }>>('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId: seeded.projectId, name: 'Second' } });
    secondDashboardId = created.body.data.id;
    const limiter = new RateLimiter(new MemoryCounterStore());
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const app = await buildApp({ config: testConfig(), db: t.database.db, clock, limiter, logStream: quiet });
    second = { app, limiter, baseUrl: await app.http.listen({ port: 0, host: '127.0.0.1' }) };
    // Two apps and a seeded project: minutes, not seconds, on a loaded 2-core machine.
  }, 300_000);
  afterAll(async () => {
    await second?.app.close();
    await second?.limiter.close();
    if (seeded) await dropProjectData(t, [seeded.projectId]);
    await t?.close();
  });

  const mint = (body: Record<string, unknown> = {}) => mintToken(t, org, seeded.dashboard.id, body);
  const read = (token: string, options: { dashboardId?: string; baseUrl?: string; origin?: string } = {}) =>
    fetch(`${options.baseUrl ?? t.baseUrl}/embed/api/dashboards/${options.dashboardId ?? seeded.dashboard.id}`, {
      headers: { authorization: `Bearer ${token}`, ...(options.origin ? { origin: options.origin } : {}) },
    });

  it('mints a signed token for one dashboard, lists it without the token, and the embed API reads that dashboard with it', async () => {
    const created = await mint({ theme: 'dark' });
    expect(created.id).toMatch(/^emb_[0-9a-z]{26}$/);
    expect(created.token.split('.')).toHaveLength(3);
    expect(new Date(created.expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(599_000);
    expect(new Date(created.expiresAt).getTime() - clock.now().getTime()).toBeLessThanOrEqual(600_000);
    const embedUrl = new URL(created.embedUrl);
    expect(embedUrl.pathname).toBe(`/embed/dashboards/${seeded.dashboard.id}`);
    expect(embedUrl.searchParams.get('token')).toBe(created.token);
    expect(embedUrl.searchParams.get('theme')).toBe('dark');

    const listed = await t.request<List<Record<string, unknown>>>('GET', `embed/tokens?dashboardId=${seeded.dashboard.id}`, { apiKey: org.apiKey });
    const entry = listed.body.data.find((token) => token.id === created.id);
    expect(entry).toMatchObject({ dashboardId: seeded.dashboard.id, theme: 'dark', revokedAt: null });
    expect(JSON.stringify(listed.body)).not.toContain(created.token);
    expect((await t.request<List<unknown>>('GET', 'embed/tokens', { apiKey: other.apiKey })).body.data).toEqual([]);

    const response = await read(created.token);
    expect(response.status).toBe(200);
    const body = (await response.json()) as One<Embedded>;
    expect(body.data).toMatchObject({ id: seeded.dashboard.id, name: 'Shop health', theme: 'dark' });
    expect(body.data.widgets.find((widget) => widget.title === 'Sales by region')?.rows).toEqual([
      { region: 'north', sum: 150 },
      { region: 'south', sum: 80 },
      { region: 'east', sum: 50 },
    ]);
    expect(JSON.stringify(body)).not.toContain('"query"');
  });

  it("runs a dashboard's widgets once for many viewers at the same moment, not once per viewer", async () => {
    const popular = await t.request<One<{ id: string }>>('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId: seeded.projectId, name: 'Popular' } });
    const { token } = await mintToken(t, org, popular.body.data.id);
    const runs = vi.spyOn(t.app.services.dashboards, 'dataOf');
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => read(token, { dashboardId: popular.body.data.id })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
      const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as One<Embedded & { refreshedAt: string }>[];
      expect(new Set(bodies.map((body) => body.data.refreshedAt)).size).toBe(1);
      expect(bodies[0].data.name).toBe('Popular');
      expect(runs).toHaveBeenCalledTimes(1);
    } finally {
      runs.mockRestore();
    }
  });

  it('refuses bad token requests with clear errors', async () => {
    const tooLong = await t.request<ErrorBody>('POST', 'embed/tokens', { apiKey: org.apiKey, body: { dashboardId: seeded.dashboard.id, expiresInSeconds: 86_401 } });
    expect(tooLong.status).toBe(422);
    const theirs = await t.request<ErrorBody>('POST', 'embed/tokens', { apiKey: other.apiKey, body: { dashboardId: seeded.dashboard.id } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('NOT_FOUND');
    const created = await mint();
    expect((await t.request('DELETE', `embed/tokens/${created.id}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await read(created.token)).status).toBe(200);
  });

  it('takes only embed tokens on the embed API, and never on /api/v1', async () => {
    const created = await mint();
    const withKey = await read(org.apiKey);
    expect(withKey.status).toBe(401);
    expect(((await withKey.json()) as ErrorBody).error).toMatch(/embed token, not an API key/);
    const none = await fetch(`${t.baseUrl}/embed/api/dashboards/${seeded.dashboard.id}`);
    expect(none.status).toBe(401);
    for (const path of ['dashboards', `dashboards/${seeded.dashboard.id}/data`, 'embed/tokens', 'projects']) {
      const response = await t.request<ErrorBody>('GET', path, { headers: { authorization: `Bearer ${created.token}` } });
      expect(response.status, path).toBe(401);
    }
    const forged = `${created.token.slice(0, -4)}AAAA`;
    expect((await read(forged)).status).toBe(401);
  });

  it('refuses a token for another dashboard (403) and an expired token (401), reading nothing', async () => {
    const created = await mint({ expiresInSeconds: 60 });
    const elsewhere = await read(created.token, { dashboardId: secondDashboardId });
    expect(elsewhere.status).toBe(403);
    const refusal = (await elsewhere.json()) as ErrorBody;
    expect(refusal.error).toMatch(/another dashboard/);
    expect(JSON.stringify(refusal)).not.toContain('Second');
    clock.advance(61_000);
    const expired = await read(created.token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as ErrorBody).error).toMatch(/expired/);
  });

  it('stops a revoked token within seconds in another process too', async () => {
    const created = await mint();
    expect((await read(created.token, { baseUrl: second.baseUrl })).status).toBe(200);
    expect((await t.request('DELETE', `embed/tokens/${created.id}`, { apiKey: org.apiKey })).status).toBe(204);
    expect((await read(created.token)).status).toBe(401);
    const started = Date.now();
    const status = await eventually(async () => {
      const response = await read(created.token, { baseUrl: second.baseUrl });
      return response.status === 401 ? ((await response.json()) as ErrorBody).error : undefined;
    }, 5_000);
    expect(status).toMatch(/revoked/);
    expect(Date.now() - started).toBeLessThan(3_000);
    const listed = await t.request<List<{ id: string; revokedAt: string | null }>>('GET', 'embed/tokens', { apiKey: org.apiKey });
    expect(listed.body.data.find((token) => token.id === created.id)?.revokedAt).not.toBeNull();
  });

  it('applies the allowed origins to the read API and to the iframe page frame-ancestors', async () => {
    const created = await mint();
    const page = await fetch(created.embedUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(await page.text()).toContain(`<vigil-dashboard dashboard="${seeded.dashboard.id}"`);
    expect(t.logs.join('')).not.toContain(created.token);
    expect(t.logs.join('')).toContain('token=[redacted]');

    const bad = await t.request<ErrorBody>('PATCH', 'embed/settings', { apiKey: org.apiKey, body: { allowedOrigins: ['https://app.example.com/path'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.details?.[0].field).toBe('allowedOrigins[0]');
    const saved = await t.request<One<{ allowedOrigins: string[] }>>('PATCH', 'embed/settings', {
      apiKey: org.apiKey,
      body: { allowedOrigins: ['https://app.example.com', 'http://127.0.0.1:8080'] },
    });
    expect(saved.body.data.allowedOrigins).toEqual(['https://app.example.com', 'http://127.0.0.1:8080']);

    const allowed = await read(created.token, { origin: 'https://app.example.com' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const refused = await read(created.token, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error).toMatch(/evil\.example are not allowed/);
    const framed = await fetch(`${t.baseUrl}/embed/dashboards/${seeded.dashboard.id}?token=${created.token}`);
    expect(framed.headers.get('content-security-policy')).toMatch(/frame-ancestors https:\/\/app\.example\.com http:\/\/127\.0\.0\.1:8080$/);
    const unsigned = await fetch(`${t.baseUrl}/embed/dashboards/${seeded.dashboard.id}?token=not-a-token`);
    expect(unsigned.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'$/);
    const preflight = await fetch(`${t.baseUrl}/embed/api/dashboards/${seeded.dashboard.id}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);

    await t.request('PATCH', 'embed/settings', { apiKey: org.apiKey, body: { allowedOrigins: [] } });
    expect((await read(created.token, { origin: 'https://evil.example' })).status).toBe(200);
  });

  it('serves sdk.js with a content-hash ETag, gzip and a long cache for the versioned URL', async () => {
    const plain = await fetch(`${t.baseUrl}/embed/sdk.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = plain.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const source = await plain.text();
    expect(source).toContain('vigil-dashboard');
    const again = await fetch(`${t.baseUrl}/embed/sdk.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const versioned = await fetch(`${t.baseUrl}/embed/sdk.js?v=${etag.slice(1, -1)}`);
    expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const { request } = await import('undici');
    const zipped = await request(`${t.baseUrl}/embed/sdk.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await zipped.body.arrayBuffer())).toString('utf8')).toBe(source);
  });

  it("runs docs/dashboards.md's REST walkthrough and its token-minting function as written", async () => {
    const body: unknown = JSON.parse(filledIn(docsExample('create-dashboard'), { siteUrl: t.baseUrl, projectId: seeded.projectId, datasetId: seeded.datasetId }));
    const created = await t.request<One<{ id: string; widgets: unknown[] }>>('POST', 'dashboards', { apiKey: org.apiKey, body });
    expect(created.status).toBe(201);
    expect(created.body.data.widgets).toHaveLength(6);

    const directory = await mkdtemp(path.join(tmpdir(), 'vigil-docs-'));
    const module = path.join(directory, 'mint.mjs');
    await writeFile(module, filledIn(docsExample('mint-token'), { siteUrl: t.baseUrl }));
    process.env.VIGIL_API_KEY = org.apiKey;
    try {
      const { mintEmbedToken } = (await import(pathToFileURL(module).href)) as { mintEmbedToken(id: string): Promise<CreatedEmbedToken> };
      const minted = await mintEmbedToken(created.body.data.id);
      expect(minted).toMatchObject({ dashboardId: created.body.data.id, theme: 'dark' });
      expect(new Date(minted.expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(899_000);
      const response = await read(minted.token, { dashboardId: created.body.data.id });
      expect(((await response.json()) as One<Embedded>).data.widgets.find((widget) => widget.title === 'Active alerts')?.rows).toEqual([{ count: 5 }]);
    } finally {
      delete process.env.VIGIL_API_KEY;
      await rm(directory, { recursive: true, force: true });
    }
  });
});
