import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/platform/clock.js';
import { standardSignature } from '../../server/src/webhooks/signer.js';
import { eventsOf } from '../../server/test/support/resources.js';
import { startTcpProxy, type TcpProxy } from '../../server/test/support/tcp-proxy.js';
import { retryAfterMs, retryDelayMs } from '../src/backoff.js';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PlanRequiredError,
  RateLimitError,
  ValidationError,
  VERSION,
  Vigil,
  VigilError,
  verifyWebhook,
  WebhookVerificationError,
  type AlertCreateParams,
} from '../src/index.js';
import { startClientTestServer, type ClientTestServer } from './support/server.js';

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  status?: number;
  answered?: Headers;
}

/** The global fetch, noting what went out and what came back, and calling `onResponse` for each answer. */
function recordingFetch(onResponse: (response: Response, sent: Sent) => void = () => undefined) {
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const entry: Sent = { method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) };
    sent.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    entry.answered = response.headers;
    onResponse(response, entry);
    return response;
  };
  return { sent, fetch: recording };
}

describe('the request path against a real server', () => {
  // One second before a minute ends: a rate-limited org is told Retry-After: 1.
  const clock = new ManualClock('2026-05-01T10:00:59.000Z');
  let server: ClientTestServer;
  let proxy: TcpProxy;
  let silent: Server;
  let projectId: string;
  const client = (options: ConstructorParameters<typeof Vigil>[0] = {}) =>
    new Vigil({ apiKey: server.org.apiKey, baseUrl: server.baseUrl, ...options });

  beforeAll(async () => {
    server = await startClientTestServer({ clock, ai: false });
    projectId = (await client().projects.create({ name: 'Requests' })).id;
    const site = new URL(server.t.baseUrl);
    proxy = await startTcpProxy({ host: site.hostname, port: Number(site.port) });
    // Accepts connections and never answers.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    silent.close();
    await proxy.close();
    await server.close();
  });

  describe('construction', () => {
    it('refuses to start without a key, naming both ways to give one', () => {
      const saved = process.env.VIGIL_API_KEY;
      delete process.env.VIGIL_API_KEY;
      try {
        expect(() => new Vigil({ baseUrl: server.baseUrl })).toThrow(VigilError);
        expect(() => new Vigil({ baseUrl: server.baseUrl })).toThrow(/VIGIL_API_KEY/);
      } finally {
        if (saved !== undefined) process.env.VIGIL_API_KEY = saved;
      }
    });

    it('reads VIGIL_API_KEY and VIGIL_BASE_URL from the environment', async () => {
      process.env.VIGIL_API_KEY = server.org.apiKey;
      process.env.VIGIL_BASE_URL = server.baseUrl;
      try {
        expect((await new Vigil().usage.retrieve()).orgId).toBe(server.org.orgId);
      } finally {
        delete process.env.VIGIL_API_KEY;
        delete process.env.VIGIL_BASE_URL;
      }
    });

    it('names itself and its version, sends default headers, and an Idempotency-Key on POST only', async () => {
      const recorder = recordingFetch();
      const vigil = client({ fetch: recorder.fetch, defaultHeaders: { 'x-team': 'sre' } });
      await vigil.projects.list();
      await vigil.alerts.create({ title: 'Headers', severity: 'info', projectId });
      const [get, post] = recorder.sent;
      const packageVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
      expect(VERSION).toBe(packageVersion);
      expect(get.headers.get('user-agent')).toBe(`@vigil/client/${packageVersion}`);
      expect(get.headers.get('x-vigil-client')).toBe(`@vigil/client/${packageVersion}`);
      expect(get.headers.get('x-team')).toBe('sre');
      expect(get.headers.has('idempotency-key')).toBe(false);
      expect(post.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });
  });

  describe('errors, each from a real answer', () => {
    it('401 AuthenticationError with code, message, request id and headers', async () => {
      const error = await new Vigil({ apiKey: `svc_live_${'0'.repeat(64)}`, baseUrl: server.baseUrl }).projects.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toBeInstanceOf(APIError);
      expect(error).toBeInstanceOf(VigilError);
      expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', requestId: expect.stringMatching(/^req_/), name: 'AuthenticationError' });
      expect((error as APIError).headers.get('x-request-id')).toBe((error as APIError).requestId);
      expect((error as APIError).message).toMatch(/not valid|revoked/);
    });

    it('403 PlanRequiredError for a plan without API access', async () => {
      const starter = await server.t.createOrg('starter');
      const error = await new Vigil({ apiKey: starter.apiKey, baseUrl: server.baseUrl }).alerts.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlanRequiredError);
      expect(error).toMatchObject({ status: 403, code: 'PLAN_UPGRADE_REQUIRED' });
    });

    it('404 NotFoundError, 409 ConflictError, 422 ValidationError with details', async () => {
      const vigil = client();
      await expect(vigil.alerts.retrieve('alrt_00000000000000000000000000')).rejects.toBeInstanceOf(NotFoundError);
      const alert = await vigil.alerts.create({ title: 'Moves', severity: 'low', projectId });
      await vigil.alerts.resolve(alert.id);
      const conflict = await vigil.alerts.acknowledge(alert.id).catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(ConflictError);
      expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
      const invalid = await vigil.alerts.create({ title: 'Bad', severity: 'urgent', projectId } as unknown as AlertCreateParams).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(ValidationError);
      expect((invalid as ValidationError).details).toEqual([{ field: 'severity', message: expect.stringContaining('must be one of') }]);
    });

    it('429 RateLimitError with retryAfter, then a retry after Retry-After succeeds', async () => {
      const limited = await server.t.createOrg('business', { rateLimitPerMinute: 1 });
      clock.set('2026-05-01T10:00:59.000Z');
      const recorder = recordingFetch((response) => {
        // The server's window ends with the minute: let the (manual) minute end once it has said so.
        if (response.status === 429) clock.advance(60_000);
      });
      const vigil = new Vigil({ apiKey: limited.apiKey, baseUrl: server.baseUrl, fetch: recorder.fetch });
      await vigil.usage.retrieve();
      const error = await vigil.usage.retrieve({ maxRetries: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 1 });

      clock.set('2026-05-01T10:02:59.000Z');
      await vigil.usage.retrieve();
      const started = Date.now();
      expect((await vigil.usage.retrieve()).orgId).toBe(limited.orgId);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(recorder.sent.map((s) => s.status)).toEqual([200, 429, 200, 429, 200]);
    });

    it('5xx InternalServerError after the retries, every attempt with the same Idempotency-Key', async () => {
      const recorder = recordingFetch();
      const error = await client({ fetch: recorder.fetch }).chat.ask({ message: 'Anyone there?', projectId }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(recorder.sent.map((s) => s.status)).toEqual([503, 503, 503]);
      expect(recorder.sent[0].answered?.get('x-should-retry')).toBe('true');
      expect(new Set(recorder.sent.map((s) => s.headers.get('idempotency-key'))).size).toBe(1);
    });

    it('APIConnectionError when nothing listens, after retrying', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const recorder = recordingFetch();
      const error = await client({ baseUrl: `http://127.0.0.1:${closedPort}/api/v1`, fetch: recorder.fetch }).projects.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error).not.toBeInstanceOf(APITimeoutError);
      expect(recorder.sent).toHaveLength(3);
    });

    it('APITimeoutError when the server never answers within the timeout', async () => {
      const port = (silent.address() as AddressInfo).port;
      const recorder = recordingFetch();
      const vigil = client({ baseUrl: `http://127.0.0.1:${port}/api/v1`, timeout: 200, fetch: recorder.fetch });
      const error = await vigil.projects.list({}, { maxRetries: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APITimeoutError);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toContain('200 ms');
      expect(recorder.sent).toHaveLength(2);
    });
  });

  describe('retries and cancellation', () => {
    it('a response lost after the server committed is retried with the same key: one alert, one alert.created', async () => {
      const recorder = recordingFetch();
      const vigil = client({ baseUrl: `http://127.0.0.1:${proxy.port}/api/v1`, fetch: recorder.fetch });
      proxy.loseNextResponse();
      const alert = await vigil.alerts.create({ title: 'Lost on the way back', severity: 'critical', projectId });
      const [lost, retried] = recorder.sent;
      expect(lost.status).toBeUndefined();
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotency-key')).toBe(lost.headers.get('idempotency-key'));
      const all = [];
      for await (const each of vigil.alerts.list({ projectId })) if (each.title === 'Lost on the way back') all.push(each);
      expect(all.map((a) => a.id)).toEqual([alert.id]);
      const created = (await eventsOf(server.t, server.org.orgId, 'alert.created')).filter((e) => e.data.id === alert.id);
      expect(created).toHaveLength(1);
    });

    it('retries 409 IDEMPOTENCY_IN_PROGRESS until the first request has finished, then gets its answer', async () => {
      let finish!: () => void;
      const slowBody = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('host,cpu\n'));
          await new Promise<void>((resolve) => {
            finish = resolve;
          });
          controller.enqueue(new TextEncoder().encode('web-1,50\n'));
          controller.close();
        },
      });
      const first = client().datasets.upload(projectId, slowBody, { name: 'slow' }, { idempotencyKey: 'upload-in-progress' });
      const held = () => server.t.database.db.query("SELECT 1 FROM idempotency_keys WHERE key = 'upload-in-progress'");
      while ((await held()).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const recorder = recordingFetch((response) => {
        if (response.status === 409) finish();
      });
      const repeat = await client({ fetch: recorder.fetch }).datasets.upload(projectId, 'host,cpu\n', { name: 'slow' }, { idempotencyKey: 'upload-in-progress' });
      const original = await first;
      expect(recorder.sent[0].status).toBe(409);
      expect(recorder.sent[0].answered?.get('x-should-retry')).toBe('true');
      expect(recorder.sent.at(-1)?.status).toBe(201);
      expect(repeat).toEqual(original);
      expect(original.rowCount).toBe(1);
    });

    it('a cancelled call rejects with the signal reason and is never retried', async () => {
      const recorder = recordingFetch();
      const controller = new AbortController();
      const vigil = client({ fetch: recorder.fetch });
      const pending = vigil.chat.ask({ message: 'Cancel me', projectId }, { signal: controller.signal });
      const stop = new Error('stopped by the caller');
      setTimeout(() => controller.abort(stop), 100);
      await expect(pending).rejects.toBe(stop);
      expect(recorder.sent).toHaveLength(1);
      await expect(vigil.projects.list({}, { signal: controller.signal })).rejects.toBe(stop);
      expect(recorder.sent).toHaveLength(1);
    });
  });

  describe('paging', () => {
    it('pages by cursor and iterates every item of every page, fetching lazily', async () => {
      const pagedProject = (await client().projects.create({ name: 'Paged' })).id;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.unshift((await client().alerts.create({ title: `Paged ${i}`, severity: 'low', projectId: pagedProject })).id);
      const recorder = recordingFetch();
      const vigil = client({ fetch: recorder.fetch });

      const first = await vigil.alerts.list({ projectId: pagedProject, limit: 2 });
      expect(first.data.map((a) => a.id)).toEqual(ids.slice(0, 2));
      expect(first).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      const second = await first.nextPage();
      expect(second?.data.map((a) => a.id)).toEqual(ids.slice(2, 4));
      const third = await second!.nextPage();
      expect(third).toMatchObject({ hasMore: false, nextCursor: null });
      expect(await third!.nextPage()).toBeNull();

      recorder.sent.length = 0;
      const seen: string[] = [];
      for await (const alert of vigil.alerts.list({ projectId: pagedProject, limit: 2 })) seen.push(alert.id);
      expect(seen).toEqual(ids);
      expect(recorder.sent).toHaveLength(3);
      expect(recorder.sent.every((s) => new URL(s.url).searchParams.get('projectId') === pagedProject)).toBe(true);

      recorder.sent.length = 0;
      for await (const alert of vigil.alerts.list({ projectId: pagedProject, limit: 2 })) {
        expect(alert.id).toBe(ids[0]);
        break;
      }
      expect(recorder.sent).toHaveLength(1);
    });
  });
});

describe('back-off', () => {
  it('reads Retry-After as seconds or an HTTP date, and caps it at 60 s', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    const now = Date.parse('2026-05-01T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Fri, 01 May 2026 10:00:07 GMT' }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(retryDelayMs(0, new Headers({ 'retry-after': '3600' }))).toBe(60_000);
  });

  it('doubles from half a second up to 8 s, taking up to a quarter off at random', () => {
    expect(retryDelayMs(0, undefined, 0)).toBe(500);
    expect(retryDelayMs(1, undefined, 0)).toBe(1000);
    expect(retryDelayMs(1, undefined, 1)).toBe(750);
    expect(retryDelayMs(10, undefined, 0)).toBe(8000);
  });
});

describe('verifyWebhook refusals', () => {
  const secret = 'whsec_' + Buffer.from('k'.repeat(32)).toString('base64');
  const body = JSON.stringify({ event: 'alert.created', orgId: 'org_1', timestamp: new Date().toISOString(), data: {} });
  const signedAt = (seconds: number) => ({
    'webhook-id': 'dlv_1',
    'webhook-timestamp': String(seconds),
    'webhook-signature': standardSignature(secret, 'dlv_1', seconds, body),
  });

  it('accepts a fresh signature and refuses a stale one, a wrong secret and a missing signature', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await verifyWebhook(body, signedAt(now), secret)).event).toBe('alert.created');
    await expect(verifyWebhook(body, signedAt(now - 301), secret)).rejects.toThrow(/more than 300 seconds/);
    expect((await verifyWebhook(body, signedAt(now - 301), secret, { tolerance: 600 })).event).toBe('alert.created');
    const other = 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64');
    await expect(verifyWebhook(body, signedAt(now), other)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(body, {}, secret)).rejects.toThrow(/No signature/);
    await expect(verifyWebhook(body, { 'x-service-signature': 'sha256=00' }, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
