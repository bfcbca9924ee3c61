// A real Prometheus Alertmanager (Debian's prometheus-alertmanager) sends its webhook notifications
// to Vigil, configured with docs/integrations.md's own configuration, only its timings shortened.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { alertmanagerInstallHint, alertmanagerRequired, type AlertmanagerProcess, startAlertmanager } from './support/alertmanager.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { databaseKinds } from './support/databases.js';
import { docsExample } from './support/docs-examples.js';
import { type Alert, allPages, createProject, eventsOf, type Project } from './support/resources.js';
import { Receiver } from './support/webhooks/receiver.js';
import { serviceSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

const available = alertmanagerRequired();
const documentedKeyFile = '/etc/alertmanager/vigil-api-key';
/** Short enough that Alertmanager notifies a firing group again about every 0.6 s: the test takes seconds, not minutes. */
const fastTimings: [RegExp, string][] = [
  [/group_wait: \S+/, 'group_wait: 100ms'],
  [/group_interval: \S+/, 'group_interval: 300ms'],
  [/repeat_interval: \S+/, 'repeat_interval: 300ms'],
];

/** The documented configuration with this test's Vigil, project, key file and short timings. */
function configFor(siteUrl: string, projectId: string, keyFile: string): string {
  let config = docsExample('alertmanager-config', 'integrations.md');
  const replacements: [RegExp | string, string][] = [['https://vigil.example.com', siteUrl], ['PROJECT_ID', projectId], [documentedKeyFile, keyFile], ...fastTimings];
  for (const [documented, value] of replacements) {
    const before = config;
    config = config.replace(documented, value);
    if (config === before) throw new Error(`docs/integrations.md's Alertmanager configuration no longer has ${String(documented)}`);
  }
  return config;
}

describe.runIf(available).each(databaseKinds())('a real Alertmanager sending to Vigil on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let project: Project;
  let worker: DeliveryWorker;
  let receiver: Receiver;
  let secret: string;
  let alertmanager: AlertmanagerProcess;
  let keyDir: string;

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startTestApp(kind, { config: { webhookAllowPrivate: true } });
    org = await t.createOrg('business', { rateLimitPerMinute: 100_000 });
    project = await createProject(t, org, 'Infrastructure');
    const webhook = await t.request<{ data: { secret: string } }>('POST', 'webhooks', {
      apiKey: org.apiKey,
      body: { name: 'On call', url: receiver.url('/pager'), events: ['alert.created', 'alert.critical', 'alert.resolved'] },
    });
    secret = webhook.body.data.secret;
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 100, 100, 100, 100], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
    });
    keyDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-am-key-'));
    const keyFile = path.join(keyDir, 'vigil-api-key');
    await writeFile(keyFile, `${org.apiKey}\n`, { mode: 0o600 });
    alertmanager = await startAlertmanager(configFor(t.baseUrl, project.id, keyFile));
  });
  afterAll(async () => {
    await alertmanager?.stop();
    await worker?.stop();
    await t?.close();
    await receiver?.close();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  const projectAlerts = () => allPages<Alert>(t, org, `alerts?projectId=${project.id}`);
  const byKey = (alerts: Alert[], fingerprint: string) => alerts.find((alert) => alert.dedupKey === fingerprint);
  const deliveredEvents = () => receiver.received('/pager').map((request) => (JSON.parse(request.body) as { event: string }).event).sort();

  it('makes one alert per fingerprint however often it repeats, resolves it when Alertmanager does, and pages once', async () => {
    const labels = { alertname: 'InstanceDown', job: 'node' };
    const down = { labels: { ...labels, instance: 'db-1:9100', severity: 'critical' }, annotations: { summary: 'db-1 is down' } };
    const slow = { labels: { ...labels, instance: 'db-2:9100', severity: 'warning' }, annotations: { summary: 'db-2 answers slowly' } };
    await alertmanager.post([down, slow]);
    const fingerprints = await waitFor(alertmanager.alerts, (alerts) => alerts.length === 2, 'Alertmanager to hold both alerts');
    const fingerprintOf = (instance: string) => fingerprints.find((alert) => alert.labels.instance === instance)!.fingerprint;
    const [downKey, slowKey] = [fingerprintOf('db-1:9100'), fingerprintOf('db-2:9100')];
    expect(downKey).not.toBe(slowKey);

    const repeated = await waitFor(
      projectAlerts,
      (alerts) => [downKey, slowKey].every((key) => (byKey(alerts, key)?.occurrences ?? 0) >= 3),
      'three notifications of each alert',
    );
    expect(repeated).toHaveLength(2);
    expect(byKey(repeated, downKey)).toMatchObject({ title: 'InstanceDown: db-1 is down', severity: 'critical', status: 'active' });
    expect(byKey(repeated, slowKey)).toMatchObject({ title: 'InstanceDown: db-2 answers slowly', severity: 'medium', status: 'active' });
    expect(byKey(repeated, downKey)!.description).toContain('  instance: db-1:9100');
    expect(Date.parse(byKey(repeated, downKey)!.lastSeenAt)).toBeGreaterThan(Date.parse(byKey(repeated, downKey)!.createdAt));

    await alertmanager.post([{ ...down, endsAt: new Date().toISOString() }]);
    const resolved = await waitFor(projectAlerts, (alerts) => byKey(alerts, downKey)?.status === 'resolved', 'the resolution of db-1');
    const slowAtResolution = byKey(resolved, slowKey)!.occurrences;
    const later = await waitFor(projectAlerts, (alerts) => byKey(alerts, slowKey)!.occurrences >= slowAtResolution + 2, 'two more repeats of db-2');
    expect(later).toHaveLength(2);
    expect(byKey(later, downKey)).toMatchObject({ status: 'resolved', occurrences: byKey(resolved, downKey)!.occurrences });
    expect(byKey(later, slowKey)!.status).toBe('active');

    const expected = ['alert.created', 'alert.created', 'alert.critical', 'alert.resolved'];
    await waitFor(deliveredEvents, (events) => events.length >= expected.length, 'the webhook deliveries');
    expect(deliveredEvents()).toEqual(expected);
    const stored = await eventsOf(t, org.orgId, 'alert.created', 'alert.critical', 'alert.resolved');
    expect(stored.map((event) => event.type).sort()).toEqual(expected);
    expect(receiver.received('/pager').every((request) => serviceSignatureValid(secret, request.headers, request.body))).toBe(true);
  });
});

if (!available) {
  describe.skip(`a real Alertmanager sending to Vigil (skipped: Alertmanager is not installed; ${alertmanagerInstallHint})`, () => {
    it('needs the prometheus-alertmanager binary', () => undefined);
  });
}
