import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type Alert, createProject, type ErrorBody, eventsOf, type List, type One, type Project } from './support/resources.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

describe.each(databaseKinds())('Idempotency-Key on %s', (kind) => {
  const clock = new ManualClock('2026-04-01T08:00:00.000Z');
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  let proxy: TcpProxy;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
    const server = new URL(t.baseUrl);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port) });
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  const postAlert = (key: string, title: string, apiKey = org.apiKey) =>
    t.request<One<Alert>>('POST', 'alerts', {
      apiKey,
      body: { title, severity: 'high', projectId: project.id },
      headers: { 'idempotency-key': key },
    });
  const alertsTitled = async (title: string) =>
    (await t.request<List<Alert>>('GET', `alerts?projectId=${project.id}&limit=100`, { apiKey: org.apiKey })).body.data.filter(
      (alert) => alert.title === title,
    );

  it('replays the first answer to a repeat, marked Idempotent-Replayed, and changes nothing more', async () => {
    const first = await postAlert('key-replay-1', 'Disk full');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await postAlert('key-replay-1', 'Disk full');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await alertsTitled('Disk full')).toHaveLength(1);
    expect(await eventsOf(t, org.orgId, 'alert.created').then((events) => events.filter((e) => e.data.id === first.body.data.id))).toHaveLength(1);
  });

  it('answers 422 naming the key when it comes back with another body', async () => {
    await postAlert('key-reused', 'CPU hot');
    const other = await postAlert('key-reused', 'CPU cold');
    expect(other.status).toBe(422);
    const body = other.body as unknown as ErrorBody;
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.error).toContain('Idempotency-Key "key-reused"');
    expect(body.details).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('different request') }]);
    expect(await alertsTitled('CPU cold')).toHaveLength(0);
  });

  it('the same body on another path is another request', async () => {
    const alert = (await postAlert('key-path', 'Path check')).body.data;
    const acknowledge = await t.request('POST', `alerts/${alert.id}/acknowledge`, { apiKey: org.apiKey, headers: { 'idempotency-key': 'key-path' } });
    expect(acknowledge.status).toBe(422);
  });

  it('keeps keys per organization', async () => {
    const other = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const otherProject = await createProject(t, other);
    const mine = await postAlert('shared-key', 'Shared');
    const theirs = await t.request<One<Alert>>('POST', 'alerts', {
      apiKey: other.apiKey,
      body: { title: 'Shared', severity: 'high', projectId: otherProject.id },
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('replays an error answer too, but a request refused by validation never takes the key', async () => {
    const invalid = await t.request<ErrorBody>('POST', 'alerts', {
      apiKey: org.apiKey,
      body: { title: 'No severity', projectId: project.id },
      headers: { 'idempotency-key': 'key-invalid-first' },
    });
    expect(invalid.status).toBe(422);
    const fixed = await t.request<One<Alert>>('POST', 'alerts', {
      apiKey: org.apiKey,
      body: { title: 'No severity', severity: 'low', projectId: project.id },
      headers: { 'idempotency-key': 'key-invalid-first' },
    });
    expect(fixed.status).toBe(201);

    const missing = await t.request<ErrorBody>('POST', 'alerts/alrt_00000000000000000000000000/resolve', {
      apiKey: org.apiKey,
      headers: { 'idempotency-key': 'key-404' },
    });
    expect(missing.status).toBe(404);
    const repeat = await t.request<ErrorBody>('POST', 'alerts/alrt_00000000000000000000000000/resolve', {
      apiKey: org.apiKey,
      headers: { 'idempotency-key': 'key-404' },
    });
    expect(repeat.status).toBe(404);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    // The same answer, naming the replay's own request id in its body as in its X-Request-Id.
    expect(repeat.body).toEqual({ ...missing.body, requestId: repeat.headers.get('x-request-id') });
  });

  it('refuses a malformed key with 422', async () => {
    const long = await postAlert('k'.repeat(256), 'Long key');
    expect(long.status).toBe(422);
    expect((long.body as unknown as ErrorBody).details).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    expect(await alertsTitled('Long key')).toHaveLength(0);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first request still runs, then replays it', async () => {
    let finishUpload!: () => void;
    const uploadBody = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('host,cpu\n'));
        await new Promise<void>((resolve) => {
          finishUpload = resolve;
        });
        controller.enqueue(new TextEncoder().encode('web-1,93\n'));
        controller.close();
      },
    });
    const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'text/csv', 'idempotency-key': 'key-slow-upload' };
    const url = `${t.baseUrl}/api/v1/projects/${project.id}/datasets?name=slow`;
    const first = fetch(url, { method: 'POST', headers, body: uploadBody, duplex: 'half' } as RequestInit);
    const heldBy = () =>
      t.database.db.query('SELECT owner FROM idempotency_keys WHERE key = $1 AND owner IS NOT NULL', ['key-slow-upload']);
    while ((await heldBy()).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const during = await fetch(url, { method: 'POST', headers, body: 'host,cpu\n' });
    expect(during.status).toBe(409);
    expect(await during.json()).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', error: expect.stringContaining('key-slow-upload') });
    finishUpload();
    const done = await first;
    expect(done.status).toBe(201);
    const dataset = (await done.json()) as One<{ id: string; rowCount: number }>;
    expect(dataset.data.rowCount).toBe(1);
    const after = await fetch(url, { method: 'POST', headers, body: 'host,cpu\n' });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(await after.json()).toEqual(dataset);
  });

  it('POSTs racing with one key make one alert and its events once; the others answer as its replays', async () => {
    const body = { title: 'Raced', severity: 'critical', projectId: project.id };
    const send = () => t.request<One<Alert>>('POST', 'alerts', { apiKey: org.apiKey, body, headers: { 'idempotency-key': 'key-raced' } });
    const answers = await Promise.all(Array.from({ length: 6 }, send));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(201));
    const alerts = await alertsTitled('Raced');
    expect(alerts).toHaveLength(1);
    expect(answers.map((answer) => answer.body.data.id)).toEqual(Array(6).fill(alerts[0].id));
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    for (const event of ['alert.created', 'alert.critical'] as const) {
      expect((await eventsOf(t, org.orgId, event)).filter((recorded) => recorded.data.id === alerts[0].id)).toHaveLength(1);
    }
  });

  it('a response lost on the way back and retried with the same key makes one alert and one alert.created', async () => {
    const url = `http://127.0.0.1:${proxy.port}/api/v1/alerts`;
    const init = {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'key-lost' },
      body: JSON.stringify({ title: 'Lost answer', severity: 'critical', projectId: project.id }),
    };
    proxy.loseNextResponse();
    await expect(fetch(url, init)).rejects.toThrow();
    const retried = await fetch(url, init);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const alerts = await alertsTitled('Lost answer');
    expect(alerts).toHaveLength(1);
    expect(((await retried.json()) as One<Alert>).data.id).toBe(alerts[0].id);
    const created = (await eventsOf(t, org.orgId, 'alert.created')).filter((event) => event.data.id === alerts[0].id);
    expect(created).toHaveLength(1);
  });

  it('runs a repeat again once the request that held its key died without storing an answer, 10 minutes on', async () => {
    const first = await postAlert('key-abandoned', 'Abandoned');
    // What a request leaves when its process dies after taking the key and before storing its answer.
    const lockedUntil = new Date(clock.now().getTime() + 10 * 60 * 1000);
    await t.database.db.query(
      `UPDATE idempotency_keys SET owner = 'req_died', status = NULL, content_type = NULL, body = NULL, locked_until = $3
       WHERE org_id = $1 AND key = $2`,
      [org.orgId, 'key-abandoned', lockedUntil],
    );
    const whileLocked = await postAlert('key-abandoned', 'Abandoned');
    expect(whileLocked.status).toBe(409);
    expect((whileLocked.body as unknown as ErrorBody).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    clock.advance(10 * 60 * 1000);
    const retried = await postAlert('key-abandoned', 'Abandoned');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.data.id).not.toBe(first.body.data.id);
    const repeated = await postAlert('key-abandoned', 'Abandoned');
    expect(repeated.headers.get('idempotent-replayed')).toBe('true');
    expect(repeated.body).toEqual(retried.body);
    expect(await alertsTitled('Abandoned')).toHaveLength(2);
  });

  it('forgets a key after 24 hours', async () => {
    const first = await postAlert('key-expiring', 'Expiring');
    clock.advance(24 * 60 * 60 * 1000);
    const later = await postAlert('key-expiring', 'Expiring');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});
