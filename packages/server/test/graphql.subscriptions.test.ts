import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { graphql, nextResults, rawSocket, subscriber } from './support/graphql.js';
import { createAlert, createProject } from './support/resources.js';
import { waitFor } from './support/webhooks/wait.js';

const alertCreated = 'subscription ($p: ID) { alertCreated(projectId: $p) { id title severity status project { name } } }';

describe.each(databaseKinds())('GraphQL subscriptions on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    other = await t.createOrg('business', { name: 'Other', rateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());

  /** Subscriptions in this process waiting for the organization's event: a mutation made after this reaches them. */
  const subscribed = (orgId: string, event: 'alert.created' | 'alert.resolved', count: number) =>
    waitFor(() => t.app.events!.subscriberCount(orgId, event), (n) => n >= count, `${count} subscriptions to ${event}`);

  it("delivers the organization's committed alerts, filtered by project, and nothing of another organization", async () => {
    const project = await createProject(t, org, 'Live');
    const elsewhere = await createProject(t, org, 'Elsewhere');
    const all = subscriber(t.baseUrl, org.apiKey);
    const onlyLive = subscriber(t.baseUrl, org.apiKey, { keyIn: 'header' });
    const stranger = subscriber(t.baseUrl, other.apiKey);
    const strangerResults: unknown[] = [];
    stranger.client.subscribe({ query: alertCreated }, { next: (result) => strangerResults.push(result), error: () => undefined, complete: () => undefined });
    const allResults = nextResults(all.client, alertCreated, 2);
    const liveResults = nextResults(onlyLive.client, alertCreated, 1, { p: project.id });
    await subscribed(org.orgId, 'alert.created', 2);
    await subscribed(other.orgId, 'alert.created', 1);

    await createAlert(t, org, { projectId: elsewhere.id, title: 'Elsewhere', severity: 'low' });
    const created = await graphql<{ createAlert: { id: string } }>(
      t.baseUrl,
      org.apiKey,
      'mutation ($p: ID!) { createAlert(input: { projectId: $p, title: "Queue backlog", severity: HIGH }) { id } }',
      { p: project.id },
    );
    const id = created.body.data!.createAlert.id;

    expect((await allResults).map((result) => result.data)).toEqual([
      { alertCreated: { id: expect.any(String), title: 'Elsewhere', severity: 'LOW', status: 'ACTIVE', project: { name: 'Elsewhere' } } },
      { alertCreated: { id, title: 'Queue backlog', severity: 'HIGH', status: 'ACTIVE', project: { name: 'Live' } } },
    ]);
    expect((await liveResults).map((result) => result.data)).toEqual([
      { alertCreated: { id, title: 'Queue backlog', severity: 'HIGH', status: 'ACTIVE', project: { name: 'Live' } } },
    ]);
    expect(strangerResults).toEqual([]);
    for (const s of [all, onlyLive, stranger]) await s.client.dispose();
  });

  it('delivers alertResolved only once the resolution commits, and nothing for a refused move', async () => {
    const project = await createProject(t, org, 'Resolving');
    const alert = await createAlert(t, org, { projectId: project.id, title: 'Resolve me', severity: 'medium' });
    const s = subscriber(t.baseUrl, org.apiKey);
    const results = nextResults<{ alertResolved: { id: string; status: string } }>(s.client, 'subscription { alertResolved { id status } }', 1);
    await subscribed(org.orgId, 'alert.resolved', 1);
    await t.request('POST', `alerts/${alert.id}/resolve`, { apiKey: org.apiKey });
    expect((await t.request('POST', `alerts/${alert.id}/resolve`, { apiKey: org.apiKey })).status).toBe(409);
    expect((await results).map((result) => result.data)).toEqual([{ alertResolved: { id: alert.id, status: 'RESOLVED' } }]);
    await s.client.dispose();
  });

  it('closes with 4401 for a bad key and 4403 for a plan below Business', async () => {
    const bad = subscriber(t.baseUrl, `svc_live_${'f'.repeat(64)}`);
    expect(await bad.closed).toBe(4401);
    const team = await t.createOrg('team');
    const low = subscriber(t.baseUrl, team.apiKey);
    expect(await low.closed).toBe(4403);
    const none = subscriber(t.baseUrl, org.apiKey, { keyIn: 'header' });
    expect(await Promise.race([none.closed, new Promise((resolve) => setTimeout(() => resolve('open'), 300))])).toBe('open');
    await none.client.dispose();
  });

  it('ends the subscriptions of a revoked key within seconds', async () => {
    const key = await t.app.services.apiKeys.create(org.orgId, { name: 'Revoked soon' });
    const s = subscriber(t.baseUrl, key.apiKey);
    const results = nextResults(s.client, alertCreated, 1);
    await subscribed(org.orgId, 'alert.created', 1);
    const revokedAt = Date.now();
    await t.app.services.apiKeys.revoke(key.key.id);
    expect(await s.closed).toBe(4401);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    await expect(results).rejects.toMatchObject({ code: 4401 });
    await waitFor(() => t.app.events!.subscriberCount(org.orgId, 'alert.created'), (n) => n === 0, 'the subscription to end');
  });

  it('refuses queries over the socket and subscriptions over a limit', async () => {
    const s = subscriber(t.baseUrl, org.apiKey);
    await expect(nextResults(s.client, '{ projects { id } }')).rejects.toMatchObject([{ message: expect.stringContaining('over HTTP') }]);
    const aliases = `subscription { alertCreated { ${Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ')} } }`;
    await expect(nextResults(s.client, aliases)).rejects.toMatchObject([{ extensions: { code: 'QUERY_TOO_COMPLEX' } }]);
    await s.client.dispose();
  });

  it("reads connection_init's key whatever the case of its name", async () => {
    for (const name of ['Authorization', 'AUTHORIZATION']) {
      const raw = rawSocket(t.baseUrl, { [name]: `Bearer ${org.apiKey}` });
      expect(await raw.accepted).toBe('ack');
      raw.socket.close();
    }
  });

  it('holds a socket to 100 subscriptions, answering one more with a graphql-ws error, and frees a place when one completes', async () => {
    const key = await t.app.services.apiKeys.create(org.orgId, { name: 'Many subscriptions' });
    const raw = rawSocket(t.baseUrl, { authorization: `Bearer ${key.apiKey}` });
    expect(await raw.accepted).toBe('ack');
    const before = t.app.events!.subscriberCount(org.orgId, 'alert.resolved');
    for (let i = 1; i <= 101; i++) raw.subscribe(String(i), 'subscription { alertResolved { id } }');
    const refused = await waitFor(() => raw.messages.filter((message) => message.type === 'error'), (errors) => errors.length > 0, 'a refusal');
    expect(refused).toEqual([
      { id: '101', type: 'error', payload: [{ message: 'At most 100 subscriptions per socket; complete one first.', extensions: { code: 'RATE_LIMITED' } }] },
    ]);
    await subscribed(org.orgId, 'alert.resolved', before + 100);
    raw.socket.send(JSON.stringify({ id: '1', type: 'complete' }));
    await waitFor(() => t.app.events!.subscriberCount(org.orgId, 'alert.resolved'), (n) => n === before + 99, 'one subscription to end');
    raw.subscribe('102', 'subscription { alertResolved { id } }');
    await subscribed(org.orgId, 'alert.resolved', before + 100);
    expect(raw.messages.filter((message) => message.type === 'error')).toHaveLength(1);
    raw.socket.close();
    await waitFor(() => t.app.events!.subscriberCount(org.orgId, 'alert.resolved'), (n) => n === before, 'the subscriptions to end');
  });

  it('closes a 51st socket of one key with 4429, and accepts one again once another closed', async () => {
    const key = await t.app.services.apiKeys.create(org.orgId, { name: 'Many sockets' });
    const open = Array.from({ length: 50 }, () => rawSocket(t.baseUrl, { authorization: `Bearer ${key.apiKey}` }));
    expect(await Promise.all(open.map((raw) => raw.accepted))).toEqual(Array(50).fill('ack'));
    const extra = rawSocket(t.baseUrl, { authorization: `Bearer ${key.apiKey}` });
    expect(await extra.accepted).toBe(4429);
    open[0].socket.close();
    await open[0].closed;
    await waitFor(
      async () => {
        const again = rawSocket(t.baseUrl, { authorization: `Bearer ${key.apiKey}` });
        const outcome = await again.accepted;
        again.socket.close();
        return outcome;
      },
      (outcome) => outcome === 'ack',
      'a place for another socket',
    );
    for (const raw of open) raw.socket.close();
  });

  it('closes a socket that sends a message over 64 KiB (1009)', async () => {
    const raw = rawSocket(t.baseUrl, { authorization: `Bearer ${org.apiKey}` });
    expect(await raw.accepted).toBe('ack');
    raw.subscribe('big', `subscription { alertCreated { id } } # ${'x'.repeat(64 * 1024)}`);
    expect(await raw.closed).toBe(1009);
  });
});
