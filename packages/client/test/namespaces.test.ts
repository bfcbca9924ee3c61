import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../server/test/support/webhooks/wait.js';
import { postgresUrl } from '../../server/test/support/databases.js';
import {
  type Alert,
  APIPromise,
  ConflictError,
  type NotFoundError,
  Page,
  RateLimitError,
  ValidationError,
  Vigil,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '../src/index.js';
import { generatedFiles } from '../../../scripts/generated-files.js';
import { startClientTestServer, type ClientTestServer } from './support/server.js';
import { needs } from '../../server/test/support/requirements.js';

interface Sent {
  url: URL;
  headers: Headers;
  status?: number;
}

/** The global fetch, noting each request and its answer's status; `rewrite` may change an answer before the client sees it. */
function recordingFetch(rewrite: (response: Response) => Response = (response) => response) {
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const entry: Sent = { url: new URL(String(input)), headers: new Headers(init?.headers) };
    sent.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    return rewrite(response);
  };
  return { sent, fetch: recording };
}

/** The same answer with one more header, as a server that sends `x-should-retry` differently would answer. */
const withHeader = (response: Response, name: string, value: string): Response => {
  const headers = new Headers(response.headers);
  headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
};

/** Every namespace against a real server on loopback, the way a user calls it. */
describe('every namespace of the client against a real server', () => {
  let server: ClientTestServer;
  let vigil: Vigil;
  let projectId: string;

  beforeAll(async () => {
    server = await startClientTestServer();
    vigil = new Vigil({ apiKey: server.org.apiKey, baseUrl: server.baseUrl });
    projectId = (await vigil.projects.create({ name: 'Checkout' })).id;
  });
  afterAll(() => server.close());

  const servedDocument = async () => (await (await fetch(`${server.t.baseUrl}/api/v1/openapi.json`)).json()) as Record<string, unknown>;

  it('the committed generated types (client, console, embed) are what the served OpenAPI document gives now', async () => {
    for (const file of await generatedFiles(await servedDocument())) {
      const committed = await readFile(new URL(`../../../${file.path}`, import.meta.url), 'utf8').catch(() => 'missing');
      expect(committed, `${file.path} is stale: run npm run generate`).toBe(file.text);
    }
  });

  it('has a method for every operation the server serves (x-vigil-client-method), and none it does not', async () => {
    // Session-only operations: API keys are managed by an admin signed in to the console, never with an API key (DESIGN §3.9).
    const sessionOnly = (method: string) => method.startsWith('apiKeys.');
    const document = (await servedDocument()) as { paths: Record<string, Record<string, { operationId?: string; 'x-vigil-client-method'?: string }>> };
    const served: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [verb, operation] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(verb)) continue;
        const method = operation['x-vigil-client-method'];
        expect(method, `${verb.toUpperCase()} ${path} has no x-vigil-client-method`).toEqual(expect.any(String));
        if (!sessionOnly(method!)) served.push(method!);
      }
    }
    expect(served.length).toBeGreaterThan(40);
    const offered: string[] = [];
    const collect = (target: object, prefix: string) => {
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
        if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function') offered.push(prefix + name);
      }
      for (const [name, value] of Object.entries(target)) if (value instanceof Object && 'client' in value) collect(value, `${prefix}${name}.`);
    };
    for (const [name, value] of Object.entries(vigil)) if (value instanceof Object && 'client' in value) collect(value, `${name}.`);
    // verify runs locally; it is not an operation of the API.
    expect(offered.filter((method) => method !== 'webhooks.verify').sort()).toEqual(served.sort());
  });

  it('projects: create, retrieve, update, list, delete', async () => {
    const project = await vigil.projects.create({ name: 'Temporary', description: 'to be deleted' });
    expect(project).toMatchObject({ id: expect.stringMatching(/^proj_/), name: 'Temporary', description: 'to be deleted' });
    expect(await vigil.projects.retrieve(project.id)).toEqual(project);
    expect((await vigil.projects.update(project.id, { area: 'payments' })).area).toBe('payments');
    expect((await vigil.projects.list()).data.map((p) => p.id)).toContain(project.id);
    await vigil.projects.delete(project.id);
    await expect(vigil.projects.retrieve(project.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('alerts: create, list with filters, retrieve, update, acknowledge, assign, resolve, delete', async () => {
    const admin = server.org.adminUserId!;
    const alert = await vigil.alerts.create({ title: 'p99 above 800 ms', severity: 'high', projectId });
    expect(alert).toMatchObject({ status: 'active', severity: 'high', projectId });
    const active = await vigil.alerts.list({ status: 'active', projectId });
    expect(active.data.map((a) => a.id)).toContain(alert.id);
    expect((await vigil.alerts.update(alert.id, { severity: 'critical' })).severity).toBe('critical');
    expect((await vigil.alerts.acknowledge(alert.id)).status).toBe('acknowledged');
    expect((await vigil.alerts.assign(alert.id, admin)).assigneeId).toBe(admin);
    const resolved = await vigil.alerts.resolve(alert.id);
    expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: expect.any(String) });
    expect(await vigil.alerts.retrieve(alert.id)).toEqual(resolved);
    const timeline = await vigil.alerts.timeline(alert.id);
    expect(timeline.map((entry) => entry.event)).toEqual(['alert.created', 'alert.critical', 'alert.acknowledged', 'alert.assigned', 'alert.resolved']);
    expect(timeline[0].actor).toMatchObject({ type: 'apiKey' });
    expect(await vigil.alerts.openCounts({ projectId })).toEqual({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
    await vigil.alerts.delete(alert.id);
    expect((await vigil.alerts.list({ projectId })).data.map((a) => a.id)).not.toContain(alert.id);
  });

  it('alerts: a create with a dedupKey repeats the open alert (occurrences + 1), and list filters by it', async () => {
    const first = await vigil.alerts.create({ projectId, title: 'Backup failed', severity: 'high', dedupKey: 'backup/db-1' });
    const repeat = await vigil.alerts.create({ projectId, title: 'Backup failed', severity: 'high', dedupKey: 'backup/db-1' });
    expect(first).toMatchObject({ dedupKey: 'backup/db-1', occurrences: 1, lastSeenAt: first.createdAt });
    expect(repeat).toMatchObject({ id: first.id, occurrences: 2 });
    const listed: Alert[] = [];
    for await (const alert of vigil.alerts.list({ dedupKey: 'backup/db-1' })) listed.push(alert);
    expect(listed.map((alert) => [alert.id, alert.occurrences])).toEqual([[first.id, 2]]);
  });

  it('integrations: an Alertmanager notification opens, repeats and resolves alerts keyed by fingerprint', async () => {
    const alert = { status: 'firing' as const, labels: { alertname: 'InstanceDown', severity: 'critical' }, fingerprint: 'fp-client-1' };
    expect(await vigil.integrations.alertmanager(projectId, { version: '4', alerts: [alert] })).toEqual({ created: 1, repeated: 0, resolved: 0 });
    expect(await vigil.integrations.alertmanager(projectId, { version: '4', alerts: [alert] })).toEqual({ created: 0, repeated: 1, resolved: 0 });
    const resolved = await vigil.integrations.alertmanager(projectId, { version: '4', alerts: [{ ...alert, status: 'resolved' }] });
    expect(resolved).toEqual({ created: 0, repeated: 0, resolved: 1 });
    const [stored] = (await vigil.alerts.list({ dedupKey: 'fp-client-1' })).data;
    expect(stored).toMatchObject({ title: 'InstanceDown', severity: 'critical', status: 'resolved', occurrences: 2 });
  });

  it('users: invite, list, retrieve, update, deactivate, activate', async () => {
    const invited = await vigil.users.invite({ email: 'new.person@example.com', role: 'member' });
    expect(invited).toMatchObject({ email: 'new.person@example.com', status: 'invited', role: 'member' });
    expect((await vigil.users.list({ status: 'invited' })).data.map((u) => u.id)).toContain(invited.id);
    expect((await vigil.users.update(invited.id, { role: 'viewer' })).role).toBe('viewer');
    expect((await vigil.users.activate(invited.id)).status).toBe('active');
    expect((await vigil.users.deactivate(invited.id)).status).toBe('deactivated');
    expect((await vigil.users.retrieve(invited.id)).status).toBe('deactivated');
  });

  it('datasets: upload from a string, a Blob, a web stream and a Node stream; list, retrieve, rows, delete', async () => {
    const csv = 'host,cpu\nweb-1,93\nweb-2,41\nweb-3,77\n';
    const fromString = await vigil.datasets.upload(projectId, csv, { name: 'from-string' });
    expect(fromString).toMatchObject({ status: 'ready', rowCount: 3, name: 'from-string' });
    const fromBlob = await vigil.datasets.upload(projectId, new Blob([csv], { type: 'text/csv' }), { name: 'from-blob' });
    expect(fromBlob.rowCount).toBe(3);
    const fromWebStream = await vigil.datasets.upload(projectId, new Blob([csv]).stream(), { name: 'from-web-stream' });
    expect(fromWebStream.rowCount).toBe(3);
    const fromNodeStream = await vigil.datasets.upload(projectId, Readable.from(['host,cpu\n', 'db-1,12\n']), { name: 'from-node-stream' });
    expect(fromNodeStream.rowCount).toBe(1);

    expect((await vigil.datasets.list({ projectId })).data.map((d) => d.name)).toEqual(
      expect.arrayContaining(['from-string', 'from-blob', 'from-web-stream', 'from-node-stream']),
    );
    expect((await vigil.datasets.retrieve(fromString.id)).columns.map((c) => c.name)).toEqual(['host', 'cpu']);
    const firstPage = await vigil.datasets.rows(fromString.id, { limit: 2 });
    expect(firstPage.data).toEqual([
      { host: 'web-1', cpu: 93 },
      { host: 'web-2', cpu: 41 },
    ]);
    const hosts: unknown[] = [];
    for await (const row of vigil.datasets.rows(fromString.id, { limit: 2 })) hosts.push(row.host);
    expect(hosts).toEqual(['web-1', 'web-2', 'web-3']);
    await vigil.datasets.delete(fromBlob.id);
    await expect(vigil.datasets.retrieve(fromBlob.id)).rejects.toMatchObject({ status: 404 });
  });

  it('connections: create, retrieve, update, list, test, delete; an unreachable database is reported, not thrown', async () => {
    const connection = await vigil.connections.create({
      name: 'Nowhere',
      dbType: 'postgresql',
      host: '127.0.0.1',
      port: 1,
      database: 'shop',
      username: 'reader',
      password: 'secret',
      sslMode: 'disable',
    });
    expect(connection).toMatchObject({ status: 'pending', name: 'Nowhere' });
    expect(connection).not.toHaveProperty('password');
    const tested = await vigil.connections.test(connection.id);
    expect(tested).toMatchObject({ status: 'error', lastError: expect.any(String) });
    expect((await vigil.connections.update(connection.id, { name: 'Still nowhere' })).name).toBe('Still nowhere');
    expect((await vigil.connections.retrieve(connection.id)).name).toBe('Still nowhere');
    expect((await vigil.connections.list()).data.map((c) => c.id)).toContain(connection.id);
    await vigil.connections.delete(connection.id);
  });

  it.runIf(needs('postgres', 'PostgreSQL-only tests'))('connections: import from a real PostgreSQL makes a dataset', async () => {
    const url = new URL(postgresUrl!);
    const connection = await vigil.connections.create({
      name: 'Test database',
      dbType: 'postgresql',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: url.pathname.slice(1),
      username: url.username || 'postgres',
      password: url.password || 'unused',
      sslMode: 'disable',
    });
    const importing = await vigil.connections.import(connection.id, { projectId, query: 'SELECT 1 AS one, 2 AS two', name: 'imported' });
    expect(importing.status).toBe('importing');
    const ready = await waitFor(() => vigil.datasets.retrieve(importing.id), (d) => d.status !== 'importing', 'the import');
    expect(ready).toMatchObject({ status: 'ready', rowCount: 1 });
  });

  it('chat, history and usage', async () => {
    server.fake.script({ content: 'Three hosts reported.' });
    const answer = await vigil.chat.ask({ message: 'How many hosts?', projectId });
    expect(answer).toMatchObject({ answer: 'Three hosts reported.', projectId, queryId: expect.stringMatching(/^qry_/) });
    const entry = await vigil.history.retrieve(answer.queryId);
    expect(entry).toMatchObject({ id: answer.queryId, question: 'How many hosts?' });
    expect((await vigil.history.list({ projectId })).data.map((h) => h.id)).toContain(answer.queryId);
    await vigil.history.delete(answer.queryId);
    await expect(vigil.history.retrieve(answer.queryId)).rejects.toMatchObject({ status: 404 });

    const usage = await vigil.usage.retrieve();
    expect(usage).toMatchObject({ orgId: server.org.orgId, plan: 'business' });
    expect(usage.totals.aiQuestions).toBeGreaterThanOrEqual(1);
  });

  it('exports: create, retrieve until completed, list, download as a stream', async () => {
    await vigil.alerts.create({ title: 'Exported alert', severity: 'low', projectId });
    const started = await vigil.exports.create({ resource: 'alerts', format: 'csv', projectId });
    expect(started.status).toBe('pending');
    const done = await waitFor(() => vigil.exports.retrieve(started.id), (e) => e.status === 'completed' || e.status === 'failed', 'the export');
    expect(done.status).toBe('completed');
    expect((await vigil.exports.list()).data.map((e) => e.id)).toContain(started.id);
    const stream = await vigil.exports.download(started.id);
    expect(stream).toBeInstanceOf(ReadableStream);
    const text = await new Response(stream).text();
    expect(text).toContain('Exported alert');
  });

  it('dashboards: create with structured widgets, read their data, add a widget, update, list, delete', async () => {
    const project = await vigil.projects.create({ name: 'Shop' });
    await vigil.alerts.create({ title: 'Disk full', severity: 'critical', projectId: project.id });
    await vigil.alerts.create({ title: 'CPU hot', severity: 'critical', projectId: project.id });
    await vigil.alerts.create({ title: 'Slow page', severity: 'low', projectId: project.id });
    const sales = await vigil.datasets.upload(project.id, 'region,amount\neu,30\nus,50\neu,15\n', { name: 'sales' });

    const dashboard = await vigil.dashboards.create({
      projectId: project.id,
      name: 'Shop health',
      widgets: [
        { title: 'Alerts by severity', kind: 'pie', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'severity' } },
        { title: 'Sales by region', kind: 'bar', query: { source: 'dataset', datasetId: sales.id, measure: { fn: 'sum', column: 'amount' }, groupBy: 'region' } },
      ],
    });
    expect(dashboard).toMatchObject({ id: expect.stringMatching(/^dash_/), projectId: project.id, name: 'Shop health' });
    expect(dashboard.widgets.map((w) => w.id)).toEqual([expect.stringMatching(/^wgt_/), expect.stringMatching(/^wgt_/)]);

    const data = await vigil.dashboards.data(dashboard.id);
    expect(data.dashboardId).toBe(dashboard.id);
    expect(data.widgets.map((w) => ({ title: w.title, columns: w.columns, rows: w.rows, error: w.error }))).toEqual([
      { title: 'Alerts by severity', columns: ['severity', 'count'], rows: [{ severity: 'critical', count: 2 }, { severity: 'low', count: 1 }], error: null },
      { title: 'Sales by region', columns: ['region', 'sum'], rows: [{ region: 'us', sum: 50 }, { region: 'eu', sum: 45 }], error: null },
    ]);

    const withNumber = await vigil.dashboards.widgets.add(dashboard.id, {
      title: 'Active alerts',
      kind: 'number',
      query: { source: 'alerts', measure: { fn: 'count' }, filters: [{ column: 'status', op: 'eq', value: 'active' }] },
    });
    expect(withNumber.widgets.map((w) => w.title)).toEqual(['Alerts by severity', 'Sales by region', 'Active alerts']);
    expect((await vigil.dashboards.data(dashboard.id)).widgets[2].rows).toEqual([{ count: 3 }]);

    await expect(
      vigil.dashboards.widgets.add(dashboard.id, { title: 'Misspelt', kind: 'bar', query: { source: 'alerts', measure: { fn: 'count' }, groupBy: 'sevrity' } }),
    ).rejects.toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });

    const renamed = await vigil.dashboards.update(dashboard.id, { name: 'Shop at a glance' });
    expect(renamed).toMatchObject({ name: 'Shop at a glance', widgets: withNumber.widgets });
    expect(await vigil.dashboards.retrieve(dashboard.id)).toEqual(renamed);
    expect((await vigil.dashboards.list({ projectId: project.id })).data.map((d) => d.id)).toEqual([dashboard.id]);
    await vigil.dashboards.delete(dashboard.id);
    await expect(vigil.dashboards.retrieve(dashboard.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('embed: mint a token that reads its dashboard, list and revoke it; set the allowed origins', async () => {
    const dashboard = await vigil.dashboards.create({
      projectId,
      name: 'Embedded',
      widgets: [{ title: 'Alerts', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' } } }],
    });
    const readEmbedded = (token: string, origin?: string) =>
      fetch(`${server.t.baseUrl}/embed/api/dashboards/${dashboard.id}`, {
        headers: { authorization: `Bearer ${token}`, ...(origin ? { origin } : {}) },
      });

    const minted = await vigil.embed.tokens.create({ dashboardId: dashboard.id, expiresInSeconds: 900, theme: 'dark' });
    expect(minted).toMatchObject({ id: expect.any(String), dashboardId: dashboard.id, theme: 'dark', token: expect.any(String), revokedAt: null });
    expect(minted.embedUrl).toContain(dashboard.id);
    expect((await readEmbedded(minted.token)).status).toBe(200);

    const listed = await vigil.embed.tokens.list({ dashboardId: dashboard.id });
    expect(listed.data.map((t) => t.id)).toEqual([minted.id]);
    expect(listed.data[0]).not.toHaveProperty('token');

    const settings = await vigil.embed.settings.update({ allowedOrigins: ['https://app.example.com'] });
    expect(settings.allowedOrigins).toEqual(['https://app.example.com']);
    expect((await vigil.embed.settings.retrieve()).allowedOrigins).toEqual(['https://app.example.com']);
    expect((await readEmbedded(minted.token, 'https://app.example.com')).status).toBe(200);
    expect((await readEmbedded(minted.token, 'https://elsewhere.example.com')).status).toBe(403);
    await vigil.embed.settings.update({ allowedOrigins: [] });

    await vigil.embed.tokens.delete(minted.id);
    expect((await vigil.embed.tokens.list({ dashboardId: dashboard.id })).data[0].revokedAt).toEqual(expect.any(String));
    await waitFor(() => readEmbedded(minted.token), (response) => response.status === 401, 'the revocation');
    await vigil.dashboards.delete(dashboard.id);
  });

  it('webhooks: create, update, rotate the secret, deliveries list/retrieve/retry, recover, delete; real deliveries verify', async () => {
    const hook = await vigil.webhooks.create({ name: 'Pager', url: server.receiver.url('/client-hook'), events: ['alert.created'] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await vigil.webhooks.retrieve(hook.id))).not.toHaveProperty('secret');
    expect((await vigil.webhooks.update(hook.id, { name: 'Pager duty' })).name).toBe('Pager duty');
    expect((await vigil.webhooks.list()).data.map((w) => w.id)).toContain(hook.id);

    const alert = await vigil.alerts.create({ title: 'Signed and delivered', severity: 'medium', projectId });
    const delivered = await waitFor(() => server.receiver.received('/client-hook'), (r) => r.length === 1, 'the first delivery');
    const event: WebhookEvent = await verifyWebhook(delivered[0].body, delivered[0].headers, hook.secret);
    expect(event.event).toBe('alert.created');
    if (event.event === 'alert.created') {
      const created: Alert = event.data;
      expect(created.id).toBe(alert.id);
    }
    // The X-Service-Signature alone verifies too.
    const { 'webhook-signature': _dropped, ...legacyHeaders } = delivered[0].headers;
    expect((await vigil.webhooks.verify(delivered[0].body, legacyHeaders, hook.secret)).event).toBe('alert.created');
    await expect(verifyWebhook(delivered[0].body.replace('Signed', 'Forged'), delivered[0].headers, hook.secret)).rejects.toThrow(
      WebhookVerificationError,
    );

    const rotated = await vigil.webhooks.rotateSecret(hook.id);
    expect(rotated.secret).not.toBe(hook.secret);
    await vigil.alerts.create({ title: 'During the rotation', severity: 'low', projectId });
    const both = await waitFor(() => server.receiver.received('/client-hook'), (r) => r.length === 2, 'the delivery after rotation');
    expect((await verifyWebhook(both[1].body, both[1].headers, hook.secret)).event).toBe('alert.created');
    expect((await verifyWebhook(both[1].body, both[1].headers, rotated.secret)).event).toBe('alert.created');

    const deliveries = await vigil.webhooks.deliveries.list(hook.id);
    expect(deliveries.data).toHaveLength(2);
    const first = await vigil.webhooks.deliveries.retrieve(hook.id, deliveries.data[1].id);
    expect(first).toMatchObject({ status: 'delivered', event: 'alert.created' });
    const retried = await vigil.webhooks.deliveries.retry(hook.id, first.id);
    expect(retried.id).toBe(first.id);
    await waitFor(() => server.receiver.received('/client-hook'), (r) => r.length === 3, 'the retried delivery');
    const recovery = await vigil.webhooks.recover(hook.id, { since: new Date(Date.now() - 60_000).toISOString() });
    expect(recovery).toBeDefined();
    await vigil.webhooks.delete(hook.id);
    await expect(vigil.webhooks.retrieve(hook.id)).rejects.toMatchObject({ status: 404 });
  });

  describe('per-call options, configured copies and raw responses', () => {
    it('sends a call\'s own headers and query parameters, over the client\'s defaults', async () => {
      const recorder = recordingFetch();
      const client = new Vigil({ apiKey: server.org.apiKey, baseUrl: server.baseUrl, fetch: recorder.fetch, defaultHeaders: { 'x-team': 'sre', 'x-tier': 'one' } });
      await client.alerts.list({ projectId }, { headers: { 'x-tier': 'two' }, query: { limit: 1, severity: 'high' } });
      const [call] = recorder.sent;
      expect(call.headers.get('x-team')).toBe('sre');
      expect(call.headers.get('x-tier')).toBe('two');
      expect(Object.fromEntries(call.url.searchParams)).toEqual({ projectId, limit: '1', severity: 'high' });
    });

    it('withOptions returns a configured copy and leaves the original as it was', async () => {
      const recorder = recordingFetch();
      const original = new Vigil({ apiKey: server.org.apiKey, baseUrl: server.baseUrl, fetch: recorder.fetch, defaultHeaders: { 'x-team': 'sre' } });
      const patient = original.withOptions({ maxRetries: 5, timeout: 5_000, defaultHeaders: { 'x-purpose': 'batch' } });
      expect([patient.maxRetries, patient.timeout, patient.baseUrl]).toEqual([5, 5_000, original.baseUrl]);
      expect([original.maxRetries, original.timeout]).toEqual([2, 60_000]);
      await patient.usage.retrieve();
      await original.usage.retrieve();
      expect(recorder.sent.map((call) => [call.headers.get('x-team'), call.headers.get('x-purpose')])).toEqual([
        ['sre', 'batch'],
        ['sre', null],
      ]);
      const elsewhere = original.withOptions({ apiKey: `svc_live_${'0'.repeat(64)}` });
      await expect(elsewhere.usage.retrieve()).rejects.toMatchObject({ status: 401 });
    });

    it('withResponse gives the result and its HTTP response; asResponse the response with its body unread', async () => {
      const pending = vigil.alerts.create({ title: 'Raw', severity: 'low', projectId });
      expect(pending).toBeInstanceOf(APIPromise);
      const { data: alert, response } = await pending.withResponse();
      expect(response.status).toBe(201);
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await response.json()).toEqual({ data: alert });
      expect(await pending).toEqual(alert);

      const raw = await vigil.alerts.retrieve(alert.id).asResponse();
      expect(raw).toBeInstanceOf(Response);
      expect(raw.bodyUsed).toBe(false);
      expect(raw.url).toBe(`${vigil.baseUrl}/alerts/${alert.id}`);
      expect(Number(raw.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(((await raw.json()) as { data: { id: string } }).data.id).toBe(alert.id);

      const deleted = await vigil.alerts.delete(alert.id).withResponse();
      expect([deleted.data, deleted.response.status]).toEqual([undefined, 204]);
    });

    it('a list call gives its first page with the response, and still iterates', async () => {
      await vigil.alerts.create({ title: 'Listed', severity: 'info', projectId });
      const listing = vigil.alerts.list({ projectId, limit: 1 });
      const { data: page, response } = await listing.withResponse();
      expect(page).toBeInstanceOf(Page);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { id: string }[] }).data.map((one) => one.id)).toEqual(page.data.map((one) => one.id));
      const titles: string[] = [];
      for await (const alert of vigil.alerts.list({ projectId, limit: 1 })) titles.push(alert.title);
      expect(titles).toContain('Listed');
    });

    it('a download can be had as the response itself, its body the file', async () => {
      const started = await vigil.exports.create({ resource: 'alerts', format: 'csv', projectId });
      let current = started;
      for (const deadline = Date.now() + 30_000; current.status !== 'completed' && Date.now() < deadline; current = await vigil.exports.retrieve(started.id)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const response = await vigil.exports.download(started.id).asResponse();
      expect(response.headers.get('content-type')).toMatch(/text\/csv/);
      expect((await response.text()).split('\n')[0]).toMatch(/^id,/);
    });

    describe('x-should-retry', () => {
      it('the server marks a refusal worth retrying and one that is not', async () => {
        const invalid = await vigil.alerts.create({ title: 'Bad', severity: 'urgent', projectId } as never).asResponse().catch((error: ValidationError) => error);
        expect(invalid).toBeInstanceOf(ValidationError);
        expect((invalid as ValidationError).headers.get('x-should-retry')).toBe('false');
        const missing = await vigil.alerts.retrieve('alrt_00000000000000000000000000').catch((error: NotFoundError) => error);
        expect((missing as NotFoundError).headers.get('x-should-retry')).toBe('false');
      });

      it('true: a refusal the client would not retry on its own is retried', async () => {
        const alert = await vigil.alerts.create({ title: 'Resolved twice', severity: 'low', projectId });
        await vigil.alerts.resolve(alert.id);
        const recorder = recordingFetch((response) => (response.status === 409 ? withHeader(response, 'x-should-retry', 'true') : response));
        const client = vigil.withOptions({ fetch: recorder.fetch, maxRetries: 1 });
        await expect(client.alerts.acknowledge(alert.id)).rejects.toBeInstanceOf(ConflictError);
        expect(recorder.sent.map((call) => call.status)).toEqual([409, 409]);
      });

      it("false: the month's AI allowance used up is a 429 the client does not wait for", async () => {
        const spent = await server.t.createOrg('business', { name: 'Spent', rateLimitPerMinute: 1_000 });
        const spender = vigil.withOptions({ apiKey: spent.apiKey });
        const theirProject = (await spender.projects.create({ name: 'Spent' })).id;
        server.fake.script({ content: 'That used every token.', promptTokens: 60_000_000 });
        await spender.chat.ask({ message: 'Everything?', projectId: theirProject });
        const recorder = recordingFetch();
        const error = await spender.withOptions({ fetch: recorder.fetch }).chat.ask({ message: 'More?', projectId: theirProject }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as RateLimitError).headers.get('x-should-retry')).toBe('false');
        expect((error as RateLimitError).retryAfter).toBeGreaterThan(60);
        expect(recorder.sent).toHaveLength(1);
      });
    });
  });
});
