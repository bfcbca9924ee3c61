import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from './support/databases.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import {
  type Alert,
  allPages,
  createAlert,
  createProject,
  type ErrorBody,
  eventsOf,
  inviteUser,
  type One,
  type Project,
} from './support/resources.js';

const start = '2026-03-01T10:00:00.000Z';

describe.each(databaseKinds())('alerts on %s', (kind) => {
  const clock = new ManualClock(start);
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  let member: string;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org);
    const invited = await inviteUser(t, org, 'oncall@example.com');
    member = (await t.request<One<{ id: string }>>('POST', `users/${invited.id}/activate`, { apiKey: org.apiKey })).body.data.id;
  });
  afterAll(() => t.close());

  const call = <T = One<Alert>>(method: string, path: string, body?: unknown) =>
    t.request<T>(method, path, { apiKey: org.apiKey, body });
  const alertEvents = async (id: string) =>
    (await eventsOf(t, org.orgId)).filter((event) => event.data.id === id).map((event) => event.type);

  it('creates an alert with every field, at the clock time, and reads it back', async () => {
    clock.set('2026-03-01T10:01:02.345Z');
    const created = await call('POST', 'alerts', {
      title: 'p99 latency above 800 ms',
      severity: 'high',
      projectId: project.id,
      description: 'Checkout is slow',
      area: 'payments',
      value: '912 ms',
      threshold: '800 ms',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^alrt_[0-9a-z]{26}$/),
      projectId: project.id,
      title: 'p99 latency above 800 ms',
      description: 'Checkout is slow',
      severity: 'high',
      status: 'active',
      area: 'payments',
      value: '912 ms',
      threshold: '800 ms',
      assigneeId: null,
      createdAt: '2026-03-01T10:01:02.345Z',
      updatedAt: '2026-03-01T10:01:02.345Z',
      acknowledgedAt: null,
      resolvedAt: null,
      dedupKey: null,
      occurrences: 1,
      lastSeenAt: '2026-03-01T10:01:02.345Z',
    });
    const fetched = await call('GET', `alerts/${created.body.data.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual(created.body.data);

    const [event] = await eventsOf(t, org.orgId, 'alert.created');
    expect(event.data).toEqual(created.body.data);
    expect(event.createdAt.toISOString()).toBe('2026-03-01T10:01:02.345Z');
    expect(await alertEvents(created.body.data.id)).toEqual(['alert.created']);
  });

  it('creates with only the required fields, leaving the others null', async () => {
    const created = await call('POST', 'alerts', { title: 'Disk 91%', severity: 'info', projectId: project.id });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ description: null, area: null, value: null, threshold: null, status: 'active' });
  });

  it('emits alert.critical exactly once when created critical, and once each time PATCH raises it to critical', async () => {
    const critical = await createAlert(t, org, { title: 'Payments down', severity: 'critical', projectId: project.id });
    expect(await alertEvents(critical.id)).toEqual(['alert.created', 'alert.critical']);
    const [criticalEvent] = (await eventsOf(t, org.orgId, 'alert.critical')).filter((event) => event.data.id === critical.id);
    expect(criticalEvent.data).toMatchObject({ id: critical.id, severity: 'critical', title: 'Payments down', projectId: project.id });

    await call('PATCH', `alerts/${critical.id}`, { severity: 'critical', title: 'Payments still down' });
    expect(await alertEvents(critical.id)).toEqual(['alert.created', 'alert.critical']);

    const low = await createAlert(t, org, { title: 'Queue growing', severity: 'low', projectId: project.id });
    await call('PATCH', `alerts/${low.id}`, { severity: 'high' });
    expect(await alertEvents(low.id)).toEqual(['alert.created']);
    const raised = await call('PATCH', `alerts/${low.id}`, { severity: 'critical' });
    expect(raised.body.data.severity).toBe('critical');
    await call('PATCH', `alerts/${low.id}`, { description: 'now critical' });
    expect(await alertEvents(low.id)).toEqual(['alert.created', 'alert.critical']);
    await call('PATCH', `alerts/${low.id}`, { severity: 'medium' });
    await call('PATCH', `alerts/${low.id}`, { severity: 'critical' });
    expect(await alertEvents(low.id)).toEqual(['alert.created', 'alert.critical', 'alert.critical']);
  });

  it('updates the given fields only, clears with null, and records updatedAt', async () => {
    clock.set('2026-03-02T08:00:00.000Z');
    const alert = await createAlert(t, org, { title: 'CPU', projectId: project.id, area: 'infra', value: '95%', threshold: '90%' });
    clock.set('2026-03-02T08:05:00.500Z');
    const updated = await call('PATCH', `alerts/${alert.id}`, { title: 'CPU hot', area: null, value: '97%' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({
      ...alert,
      title: 'CPU hot',
      area: null,
      value: '97%',
      updatedAt: '2026-03-02T08:05:00.500Z',
    });
    expect((await call('GET', `alerts/${alert.id}`)).body.data).toEqual(updated.body.data);
  });

  it('refuses to change status, ids or timestamps through PATCH, and an empty PATCH', async () => {
    const alert = await createAlert(t, org, { title: 'Errors', projectId: project.id });
    for (const body of [{ status: 'resolved' }, { projectId: project.id }, { createdAt: start }, { assigneeId: member }]) {
      const response = await call<ErrorBody>('PATCH', `alerts/${alert.id}`, body);
      expect(response.status).toBe(422);
      expect(response.body.details).toEqual([{ field: Object.keys(body)[0], message: 'is not a known field' }]);
    }
    expect((await call<ErrorBody>('PATCH', `alerts/${alert.id}`, {})).status).toBe(422);
    expect((await call('GET', `alerts/${alert.id}`)).body.data).toEqual(alert);
  });

  it('walks active → acknowledged → resolved with exact timestamps and one event per move', async () => {
    clock.set('2026-03-03T00:00:00.000Z');
    const alert = await createAlert(t, org, { title: 'Error rate', severity: 'high', projectId: project.id });

    clock.set('2026-03-03T00:01:00.000Z');
    const acknowledged = await call('POST', `alerts/${alert.id}/acknowledge`);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.data).toEqual({
      ...alert,
      status: 'acknowledged',
      acknowledgedAt: '2026-03-03T00:01:00.000Z',
      updatedAt: '2026-03-03T00:01:00.000Z',
    });

    clock.set('2026-03-03T00:02:00.000Z');
    const assigned = await call('POST', `alerts/${alert.id}/assign`, { userId: member });
    expect(assigned.status).toBe(200);
    expect(assigned.body.data).toEqual({ ...acknowledged.body.data, assigneeId: member, updatedAt: '2026-03-03T00:02:00.000Z' });

    clock.set('2026-03-03T00:03:00.000Z');
    const resolved = await call('POST', `alerts/${alert.id}/resolve`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toEqual({
      ...assigned.body.data,
      status: 'resolved',
      resolvedAt: '2026-03-03T00:03:00.000Z',
      updatedAt: '2026-03-03T00:03:00.000Z',
    });

    expect(await alertEvents(alert.id)).toEqual(['alert.created', 'alert.acknowledged', 'alert.assigned', 'alert.resolved']);
    const moves = (await eventsOf(t, org.orgId, 'alert.acknowledged', 'alert.assigned', 'alert.resolved')).filter(
      (event) => event.data.id === alert.id,
    );
    expect(moves.map((event) => event.data)).toEqual([acknowledged.body.data, assigned.body.data, resolved.body.data]);
  });

  describe('the lifecycle table', () => {
    const moves = ['acknowledge', 'assign', 'resolve'] as const;
    const table: Record<string, Record<(typeof moves)[number], string | 409>> = {
      active: { acknowledge: 'acknowledged', assign: 'active', resolve: 'resolved' },
      acknowledged: { acknowledge: 409, assign: 'acknowledged', resolve: 'resolved' },
      resolved: { acknowledge: 409, assign: 409, resolve: 409 },
    };

    const alertIn = async (status: string): Promise<Alert> => {
      const alert = await createAlert(t, org, { title: `In ${status}`, projectId: project.id });
      if (status === 'acknowledged') return (await call('POST', `alerts/${alert.id}/acknowledge`)).body.data;
      if (status === 'resolved') return (await call('POST', `alerts/${alert.id}/resolve`)).body.data;
      return alert;
    };

    for (const [from, outcomes] of Object.entries(table)) {
      for (const move of moves) {
        const outcome = outcomes[move];
        it(`${move} from ${from} → ${outcome === 409 ? '409 CONFLICT, nothing changed' : outcome}`, async () => {
          const alert = await alertIn(from);
          const eventsBefore = await alertEvents(alert.id);
          clock.advance(1000);
          const response = await call<One<Alert> & ErrorBody>(
            'POST',
            `alerts/${alert.id}/${move}`,
            move === 'assign' ? { userId: member } : undefined,
          );
          if (outcome === 409) {
            expect(response.status).toBe(409);
            expect(response.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining(from) });
            expect((await call('GET', `alerts/${alert.id}`)).body.data).toEqual(alert);
            expect(await alertEvents(alert.id)).toEqual(eventsBefore);
          } else {
            expect(response.status).toBe(200);
            expect(response.body.data.status).toBe(outcome);
            expect(response.body.data.updatedAt).toBe(clock.now().toISOString());
            expect(await alertEvents(alert.id)).toEqual([...eventsBefore, `alert.${move === 'assign' ? 'assigned' : `${move}d`}`]);
          }
        });
      }
    }
  });

  it('assigns only active members of the organization', async () => {
    const alert = await createAlert(t, org, { title: 'Assign me', projectId: project.id });
    const invited = await inviteUser(t, org, 'new@example.com');
    const notActive = await call<ErrorBody>('POST', `alerts/${alert.id}/assign`, { userId: invited.id });
    expect(notActive.status).toBe(422);
    expect(notActive.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'userId', message: 'user is invited' }] });

    const leaving = await inviteUser(t, org, 'leaving@example.com');
    await call('POST', `users/${leaving.id}/activate`);
    await call('POST', `users/${leaving.id}/deactivate`);
    expect((await call<ErrorBody>('POST', `alerts/${alert.id}/assign`, { userId: leaving.id })).status).toBe(422);

    const nobody = await call<ErrorBody>('POST', `alerts/${alert.id}/assign`, { userId: 'usr_01jd3v7f3ygc0x6m8pj6kq2e9r' });
    expect(nobody.status).toBe(404);
    expect(nobody.body.code).toBe('NOT_FOUND');
    expect((await call<ErrorBody>('POST', `alerts/${alert.id}/assign`, {})).body.details).toEqual([
      { field: 'userId', message: 'is required' },
    ]);

    expect((await call('GET', `alerts/${alert.id}`)).body.data).toEqual(alert);
    expect(await alertEvents(alert.id)).toEqual(['alert.created']);

    const reassigned = await call('POST', `alerts/${alert.id}/assign`, { userId: org.adminUserId });
    expect(reassigned.body.data.assigneeId).toBe(org.adminUserId);
    const again = await call('POST', `alerts/${alert.id}/assign`, { userId: member });
    expect(again.body.data.assigneeId).toBe(member);
    expect(await alertEvents(alert.id)).toEqual(['alert.created', 'alert.assigned', 'alert.assigned']);
  });

  it('deletes an alert: 204, then 404, with one alert.deleted carrying the alert', async () => {
    const alert = await createAlert(t, org, { title: 'Delete me', severity: 'low', projectId: project.id });
    const deleted = await call('DELETE', `alerts/${alert.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    for (const [method, path] of [
      ['GET', `alerts/${alert.id}`],
      ['DELETE', `alerts/${alert.id}`],
      ['POST', `alerts/${alert.id}/resolve`],
    ]) {
      expect((await call<ErrorBody>(method, path)).body.code, `${method} ${path}`).toBe('NOT_FOUND');
    }
    expect(await alertEvents(alert.id)).toEqual(['alert.created', 'alert.deleted']);
    const [event] = (await eventsOf(t, org.orgId, 'alert.deleted')).filter((e) => e.data.id === alert.id);
    expect(event.data).toEqual(alert);
  });

  it('rejects a create with a missing title, a bad severity, an unknown project or an unknown field', async () => {
    const missing = await call<ErrorBody>('POST', 'alerts', { severity: 'high', projectId: project.id });
    expect(missing.status).toBe(422);
    expect(missing.body.details).toEqual([{ field: 'title', message: 'is required' }]);

    const badSeverity = await call<ErrorBody>('POST', 'alerts', { title: 'x', severity: 'urgent', projectId: project.id });
    expect(badSeverity.status).toBe(422);
    expect(badSeverity.body.details).toEqual([{ field: 'severity', message: 'must be one of critical, high, medium, low, info' }]);

    const upper = await call<ErrorBody>('POST', 'alerts', { title: 'x', severity: 'CRITICAL', projectId: project.id });
    expect(upper.status).toBe(422);

    const noProject = await call<ErrorBody>('POST', 'alerts', { title: 'x', severity: 'high', projectId: 'proj_01jd3v7f3ygc0x6m8pj6kq2e9r' });
    expect(noProject.status).toBe(404);
    expect(noProject.body.code).toBe('NOT_FOUND');

    const extra = await call<ErrorBody>('POST', 'alerts', { title: 'x', severity: 'high', projectId: project.id, status: 'resolved' });
    expect(extra.status).toBe(422);
    expect(extra.body.details).toEqual([{ field: 'status', message: 'is not a known field' }]);
  });

  it('filters the list by projectId, status and severity, alone and together', async () => {
    const own = await startTestApp(kind, { clock });
    try {
      const o = await own.createOrg('business', { rateLimitPerMinute: 100_000 });
      const a = await createProject(own, o, 'A');
      const b = await createProject(own, o, 'B');
      const made: Alert[] = [];
      for (const [p, severity] of [
        [a, 'critical'],
        [a, 'high'],
        [a, 'high'],
        [b, 'high'],
        [b, 'low'],
      ] as const) {
        made.push(await createAlert(own, o, { title: `${p.name} ${severity}`, severity, projectId: p.id }));
      }
      await own.request('POST', `alerts/${made[1].id}/acknowledge`, { apiKey: o.apiKey });
      await own.request('POST', `alerts/${made[3].id}/resolve`, { apiKey: o.apiKey });

      const ids = async (query: string) => (await allPages<Alert>(own, o, `alerts${query}`, 2)).map((alert) => alert.id);
      const newestFirst = (...indexes: number[]) => indexes.map((index) => made[index].id).reverse();
      expect(await ids('')).toEqual(newestFirst(0, 1, 2, 3, 4));
      expect(await ids(`?projectId=${a.id}`)).toEqual(newestFirst(0, 1, 2));
      expect(await ids('?status=active')).toEqual(newestFirst(0, 2, 4));
      expect(await ids('?status=acknowledged')).toEqual(newestFirst(1));
      expect(await ids('?severity=high')).toEqual(newestFirst(1, 2, 3));
      expect(await ids(`?projectId=${b.id}&severity=high&status=resolved`)).toEqual(newestFirst(3));
      expect(await ids(`?projectId=${a.id}&severity=low`)).toEqual([]);

      const bad = await own.request<ErrorBody>('GET', 'alerts?status=open&severity=urgent', { apiKey: o.apiKey });
      expect(bad.status).toBe(422);
      expect(bad.body.details?.map((problem) => problem.field).sort()).toEqual(['severity', 'status']);
    } finally {
      await own.close();
    }
  });

  it("deleting a project deletes its alerts", async () => {
    const doomed = await createProject(t, org, 'Doomed');
    const alert = await createAlert(t, org, { title: 'Goes with it', projectId: doomed.id });
    expect((await call('DELETE', `projects/${doomed.id}`)).status).toBe(204);
    expect((await call('GET', `alerts/${alert.id}`)).status).toBe(404);
    expect((await allPages<Alert>(t, org, `alerts?projectId=${doomed.id}`)).length).toBe(0);
  });
});
