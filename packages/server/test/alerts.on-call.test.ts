import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { type Alert, createAlert, createProject, type List, type One, type Project } from './support/resources.js';
import { acceptLink, type SignedIn } from './support/sessions.js';

interface TimelineEntry {
  event: string;
  at: string;
  actor: { type: 'user'; id: string; email: string | null } | { type: 'apiKey'; id: string; name: string | null } | null;
  assigneeId: string | null;
}

/** Reads a server-sent-events stream, collecting each message's data, until closed. */
function listen(url: string, cookie: string) {
  const controller = new AbortController();
  const messages: { event: string; data: Alert }[] = [];
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => (opened = resolve));
  const done = (async () => {
    const response = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        if (buffer.includes(': live')) opened();
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block);
          if (data) messages.push(JSON.parse(data[1]) as { event: string; data: Alert });
        }
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    }
  })();
  return { messages, ready, close: () => (controller.abort(), done) };
}

describe.each(databaseKinds())('what the on-call console reads, on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  let ada: SignedIn;
  let bo: SignedIn;
  let boId: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.createOrg('business', { adminEmail: 'ada@acme.test', founderJoins: false, rateLimitPerMinute: 100_000 });
    ada = await acceptLink(t, org.inviteUrl!);
    const invited = await ada.call<One<{ id: string; inviteUrl: string }>>('POST', 'users', { email: 'bo@acme.test', role: 'member' });
    boId = invited.body.data.id;
    bo = await acceptLink(t, invited.body.data.inviteUrl);
    project = await createProject(t, org);
  });
  afterAll(() => t?.close());

  it("tells an alert's story: who created, acknowledged, assigned and resolved it, and when", async () => {
    const alert = await createAlert(t, org, { title: 'Disk almost full', severity: 'critical', projectId: project.id });
    expect((await ada.call('POST', `alerts/${alert.id}/acknowledge`)).status).toBe(200);
    expect((await bo.call('POST', `alerts/${alert.id}/assign`, { userId: boId })).status).toBe(200);
    expect((await bo.call('POST', `alerts/${alert.id}/resolve`)).status).toBe(200);

    const timeline = await ada.call<{ data: TimelineEntry[] }>('GET', `alerts/${alert.id}/timeline`);
    expect(timeline.status).toBe(200);
    const story = timeline.body.data.map((entry) => [entry.event, entry.actor?.type === 'user' ? entry.actor.email : entry.actor?.type]);
    expect(story).toEqual([
      ['alert.created', 'apiKey'],
      ['alert.critical', 'apiKey'],
      ['alert.acknowledged', 'ada@acme.test'],
      ['alert.assigned', 'bo@acme.test'],
      ['alert.resolved', 'bo@acme.test'],
    ]);
    expect(timeline.body.data[3].assigneeId).toBe(boId);
    expect(timeline.body.data[0].actor).toMatchObject({ type: 'apiKey', id: org.keyId });
    const times = timeline.body.data.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("answers 404 for another organization's alert or an unknown one, never its events", async () => {
    const alert = await createAlert(t, org, { title: 'Private', severity: 'low', projectId: project.id });
    const other = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    const foreign = await t.request('GET', `alerts/${alert.id}/timeline`, { apiKey: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await ada.call('GET', 'alerts/alrt_nope/timeline')).status).toBe(404);
  });

  it('counts open alerts per severity, and filters by assignee and by a text in the title', async () => {
    const counted = await createProject(t, org, 'Counted');
    for (const [title, severity] of [
      ['Queue backlog growing', 'high'],
      ['Queue consumer down', 'high'],
      ['Certificate expires in 9 days', 'low'],
    ]) {
      await createAlert(t, org, { title, severity, projectId: counted.id });
    }
    const resolved = await createAlert(t, org, { title: 'Queue was slow', severity: 'high', projectId: counted.id });
    await ada.call('POST', `alerts/${resolved.id}/resolve`);
    const counts = await ada.call<One<Record<string, number>>>('GET', `alerts/open-counts?projectId=${counted.id}`);
    expect(counts.body.data).toEqual({ critical: 0, high: 2, medium: 0, low: 1, info: 0 });

    const queue = await ada.call<List<Alert>>('GET', `alerts?projectId=${counted.id}&q=QUEUE`);
    expect(queue.body.data.map((alert) => alert.title).sort()).toEqual(['Queue backlog growing', 'Queue consumer down', 'Queue was slow']);
    const percent = await ada.call<List<Alert>>('GET', `alerts?projectId=${counted.id}&q=${encodeURIComponent('%')}`);
    expect(percent.body.data).toEqual([]);

    const consumer = queue.body.data.find((alert) => alert.title === 'Queue consumer down')!;
    expect((await ada.call('POST', `alerts/${consumer.id}/assign`, { userId: boId })).status).toBe(200);
    const mine = await bo.call<List<Alert>>('GET', `alerts?assigneeId=${boId}&projectId=${counted.id}`);
    expect(mine.body.data.map((alert) => alert.id)).toEqual([consumer.id]);
    const tooLong = await ada.call('GET', `alerts?q=${'x'.repeat(201)}`);
    expect(tooLong.status).toBe(422);
  });

  it("streams the organization's alert changes to a session as server-sent events", async () => {
    const stream = listen(`${t.baseUrl}/api/v1/alerts/stream?projectId=${project.id}`, bo.cookie);
    await stream.ready;
    const elsewhere = await createProject(t, org, 'Elsewhere');
    await createAlert(t, org, { title: 'Not in this project', severity: 'info', projectId: elsewhere.id });
    const alert = await createAlert(t, org, { title: 'Streamed', severity: 'medium', projectId: project.id });
    await ada.call('POST', `alerts/${alert.id}/acknowledge`);
    await expect.poll(() => stream.messages.map((message) => `${message.event} ${message.data.title}`), { timeout: 5000 }).toEqual([
      'alert.created Streamed',
      'alert.acknowledged Streamed',
    ]);
    await stream.close();

    const refused = await fetch(`${t.baseUrl}/api/v1/alerts/stream`);
    expect(refused.status).toBe(401);
  });
});
