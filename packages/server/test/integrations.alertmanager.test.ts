import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../src/db/connect.js';
import type { CreateAlert } from '../src/modules/alerts/schema.js';
import { AlertService } from '../src/modules/alerts/service.js';
import { defaultSeverity, severityLabels, severityOf } from '../src/modules/integrations/alertmanager-alert.js';
import type { AlertmanagerAlert } from '../src/modules/integrations/schema.js';
import { IntegrationService } from '../src/modules/integrations/service.js';
import { databaseKinds } from './support/databases.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg, testConfig } from './support/app.js';
import { type Alert, allPages, createProject, type ErrorBody, eventsOf, orgSnapshot, type Project } from './support/resources.js';

type Counts = { created: number; repeated: number; resolved: number };

const firing = (fingerprint: string, labels: Record<string, string>, annotations: Record<string, string> = {}): AlertmanagerAlert => ({
  status: 'firing',
  labels,
  annotations,
  startsAt: '2026-06-01T08:00:00.123456789Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: `http://prometheus.example:9090/graph?g0.expr=up+%3D%3D+0&fp=${fingerprint}`,
  fingerprint,
});

const notification = (alerts: AlertmanagerAlert[]) => ({
  version: '4',
  groupKey: '{}:{alertname="InstanceDown"}',
  truncatedAlerts: 0,
  status: alerts.some((alert) => alert.status === 'firing') ? 'firing' : 'resolved',
  receiver: 'vigil',
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://alertmanager.example:9093',
  alerts,
});

describe('the severity label onto Vigil severities', () => {
  it('maps every documented label value, in any case and with spaces around it, and anything else to the default', () => {
    for (const [severity, labels] of Object.entries(severityLabels)) {
      for (const label of labels) {
        expect(severityOf(label), label).toBe(severity);
        expect(severityOf(` ${label.toUpperCase()} `), label).toBe(severity);
      }
    }
    expect([severityOf(undefined), severityOf(''), severityOf('urgent-ish')]).toEqual([defaultSeverity, defaultSeverity, defaultSeverity]);
    expect(defaultSeverity).toBe('high');
  });
});

describe.each(databaseKinds())('POST /integrations/alertmanager on %s', (kind) => {
  const clock = new ManualClock('2026-06-01T08:00:05.000Z');
  let t: TestApp;
  let org: TestOrg;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp(kind, { clock });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org, 'Infrastructure');
  });
  afterAll(() => t.close());

  const send = (body: unknown, projectId = project.id, apiKey = org.apiKey) =>
    t.request<{ data: Counts } & ErrorBody>('POST', `integrations/alertmanager?projectId=${encodeURIComponent(projectId)}`, { apiKey, body });
  const byKey = async (fingerprint: string) => allPages<Alert>(t, org, `alerts?dedupKey=${fingerprint}`);

  it('opens one alert per firing fingerprint with its title, mapped severity, labels, annotations and link, then counts repeats', async () => {
    const down = firing(
      'a1b2c3d4e5f60001',
      { alertname: 'InstanceDown', instance: 'db-1:9100', job: 'node', severity: 'critical' },
      { summary: 'db-1 is down', description: 'db-1 has not answered scrapes for 1 minute.', runbook_url: 'https://runbooks.example/down' },
    );
    const disk = firing('a1b2c3d4e5f60002', { alertname: 'DiskFilling', instance: 'db-2:9100', severity: 'warning' });
    const first = await send(notification([down, disk]));
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ created: 2, repeated: 0, resolved: 0 });

    const [downAlert] = await byKey(down.fingerprint);
    expect(downAlert).toMatchObject({
      projectId: project.id,
      title: 'InstanceDown: db-1 is down',
      severity: 'critical',
      status: 'active',
      dedupKey: 'a1b2c3d4e5f60001',
      occurrences: 1,
      createdAt: '2026-06-01T08:00:05.000Z',
    });
    expect(downAlert.description).toBe(
      [
        'db-1 has not answered scrapes for 1 minute.',
        '',
        'Labels:',
        '  alertname: InstanceDown',
        '  instance: db-1:9100',
        '  job: node',
        '  severity: critical',
        'Annotations:',
        '  description: db-1 has not answered scrapes for 1 minute.',
        '  runbook_url: https://runbooks.example/down',
        '  summary: db-1 is down',
        'Firing since: 2026-06-01T08:00:00.123456789Z',
        `Source: ${down.generatorURL}`,
      ].join('\n'),
    );
    expect((await byKey(disk.fingerprint))[0]).toMatchObject({ title: 'DiskFilling', severity: 'medium', occurrences: 1 });

    clock.set('2026-06-01T08:05:05.000Z');
    const again = await send(notification([down, disk]));
    expect(again.body.data).toEqual({ created: 0, repeated: 2, resolved: 0 });
    expect((await byKey(down.fingerprint))[0]).toMatchObject({ id: downAlert.id, occurrences: 2, lastSeenAt: '2026-06-01T08:05:05.000Z' });
    const created = (await eventsOf(t, org.orgId, 'alert.created', 'alert.critical')).filter((event) => event.data.id === downAlert.id);
    expect(created.map((event) => event.type)).toEqual(['alert.created', 'alert.critical']);
  });

  it('resolves the open alert of a resolved fingerprint once, and a resolved one it never saw changes nothing', async () => {
    const cpu = firing('c0ffee0000000001', { alertname: 'HighCPU', severity: 'info' });
    await send(notification([cpu]));
    const [open] = await byKey(cpu.fingerprint);

    clock.set('2026-06-01T09:00:00.000Z');
    const resolvedCpu = { ...cpu, status: 'resolved' as const, endsAt: '2026-06-01T08:59:00Z' };
    const unknown = { ...firing('c0ffee0000000099', { alertname: 'NeverFired' }), status: 'resolved' as const };
    expect((await send(notification([resolvedCpu, unknown]))).body.data).toEqual({ created: 0, repeated: 0, resolved: 1 });
    expect((await byKey(cpu.fingerprint))[0]).toMatchObject({ id: open.id, status: 'resolved', resolvedAt: '2026-06-01T09:00:00.000Z' });
    expect(await byKey(unknown.fingerprint)).toEqual([]);
    expect((await send(notification([resolvedCpu]))).body.data).toEqual({ created: 0, repeated: 0, resolved: 0 });
    const resolvedEvents = (await eventsOf(t, org.orgId, 'alert.resolved')).filter((event) => event.data.id === open.id);
    expect(resolvedEvents.map((event) => event.data.status)).toEqual(['resolved']);

    expect((await send(notification([cpu]))).body.data).toEqual({ created: 1, repeated: 0, resolved: 0 });
    expect((await byKey(cpu.fingerprint)).map((alert) => alert.status)).toEqual(['active', 'resolved']);
  });

  it('takes concurrent notifications naming the same alerts in other orders: each fingerprint one alert, every notification counted', async () => {
    const alerts = Array.from({ length: 5 }, (_, index) => firing(`c0c0000000000${index}`, { alertname: `Concurrent${index}` }));
    const orders = Array.from({ length: 10 }, (_, round) => [...alerts.slice(round % 5), ...alerts.slice(0, round % 5)]);
    const answers = await Promise.all(orders.map((order, round) => send(notification(round % 2 ? order.reverse() : order))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    const total = answers.reduce((sum, answer) => ({ created: sum.created + answer.body.data.created, repeated: sum.repeated + answer.body.data.repeated }), {
      created: 0,
      repeated: 0,
    });
    expect(total).toEqual({ created: 5, repeated: 45 });
    for (const alert of alerts) expect((await byKey(alert.fingerprint)).map((stored) => stored.occurrences)).toEqual([10]);
  });

  it('refuses a malformed payload with 422 naming the field, and stores nothing of it', async () => {
    const before = await orgSnapshot(t.database.db, org.orgId);
    const good = firing('f00d000000000001', { alertname: 'Fine' });
    const { fingerprint: _fingerprint, ...noFingerprint } = firing('f00d000000000002', { alertname: 'NoFingerprint' });
    const cases: [unknown, string][] = [
      [{ ...notification([good]), version: '3' }, 'version'],
      [notification([good, noFingerprint as AlertmanagerAlert]), 'alerts.1.fingerprint'],
      [notification([{ ...good, status: 'pending' as 'firing' }]), 'alerts.0.status'],
      [notification([{ ...good, labels: { alertname: 7 as unknown as string } }]), 'alerts.0.labels.alertname'],
      [{ ...notification([good]), alerts: undefined }, 'alerts'],
      [notification(Array.from({ length: 1001 }, (_, index) => firing(`bulk${index}`, { alertname: 'Bulk' }))), 'alerts'],
    ];
    for (const [body, field] of cases) {
      const refused = await send(body);
      expect(refused.status, field).toBe(422);
      expect(refused.body.code).toBe('VALIDATION_ERROR');
      expect(refused.body.details?.map((problem) => problem.field), field).toContain(field);
    }
    const noProject = await t.request<ErrorBody>('POST', 'integrations/alertmanager', { apiKey: org.apiKey, body: notification([good]) });
    expect(noProject.status).toBe(422);
    expect(noProject.body.details).toEqual([{ field: 'projectId', message: 'is required' }]);
    expect(await orgSnapshot(t.database.db, org.orgId)).toEqual(before);
  });

  it('needs an API key, and answers 404 for a project of another organization, which keeps its alerts', async () => {
    const stranger = await t.createOrg('business');
    const theirs = await createProject(t, stranger, 'Theirs');
    const payload = notification([firing('5eed000000000001', { alertname: 'Theirs' })]);
    expect((await send(payload, theirs.id, stranger.apiKey)).body.data).toEqual({ created: 1, repeated: 0, resolved: 0 });
    const before = await orgSnapshot(t.database.db, stranger.orgId);
    const refused = await send(payload, theirs.id);
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('NOT_FOUND');
    expect(await orgSnapshot(t.database.db, stranger.orgId)).toEqual(before);
    const anonymous = await t.request<ErrorBody>('POST', `integrations/alertmanager?projectId=${project.id}`, { body: payload });
    expect(anonymous.status).toBe(401);
  });

  it('applies a payload all or nothing: a failure at its second alert leaves no alert and no event of the first', async () => {
    const injected = new Error('injected failure at the second alert');
    class FailingSecond extends AlertService {
      private raised = 0;
      override async raiseIn(tx: Queryable, orgId: string, input: CreateAlert) {
        if (++this.raised === 2) throw injected;
        return super.raiseIn(tx, orgId, input);
      }
    }
    const ctx = { db: t.database.db, clock, config: testConfig() };
    const integrations = new IntegrationService(ctx, new FailingSecond(ctx));
    const before = await orgSnapshot(t.database.db, org.orgId);
    const payload = notification([firing('0a11000000000001', { alertname: 'One' }), firing('0a11000000000002', { alertname: 'Two' })]);
    await expect(integrations.receiveAlertmanager(org.orgId, project.id, payload as Parameters<IntegrationService['receiveAlertmanager']>[2])).rejects.toBe(
      injected,
    );
    expect(await orgSnapshot(t.database.db, org.orgId)).toEqual(before);
  });
});
