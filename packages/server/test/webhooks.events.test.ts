import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventNames } from '../src/events/catalog.js';
import { systemClock } from '../src/platform/clock.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { databaseKinds } from './support/databases.js';
import { startTestApp, type TestApp, type TestOrg, testSecretKey } from './support/app.js';
import { Receiver } from './support/webhooks/receiver.js';
import { serviceSignatureValid } from './support/webhooks/signatures.js';
import { testTls } from './support/webhooks/tls.js';
import { waitFor } from './support/webhooks/wait.js';

interface Payload {
  event: string;
  orgId: string;
  data: Record<string, unknown>;
}

describe.each(databaseKinds())('events from real operations reach webhooks on %s', (kind) => {
  let t: TestApp;
  let org: TestOrg;
  let receiver: Receiver;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await startTestApp(kind, { config: { webhookAllowPrivate: true } });
    org = await t.createOrg('business');
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock: systemClock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 100, 100, 100, 100], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 50,
    });
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
  });

  it('delivers the event of every operation that exists, each with the resource as the API shows it and never a secret', async () => {
    const call = async <T = { id: string }>(method: string, path: string, body?: unknown) =>
      (await t.request<{ data: T }>(method, path, { apiKey: org.apiKey, body })).body.data;
    const all = await call<{ id: string; secret: string }>('POST', 'webhooks', { name: 'Everything', url: receiver.url('/all'), events: eventNames });

    const project = await call('POST', 'projects', { name: 'Shop' });
    await call('PATCH', `projects/${project.id}`, { area: 'payments' });
    const alert = await call('POST', 'alerts', { projectId: project.id, title: 'Down', severity: 'critical' });
    await call('POST', `alerts/${alert.id}/acknowledge`);
    const user = await call('POST', 'users', { email: 'on-call@example.com', role: 'member' });
    await call('POST', `alerts/${alert.id}/assign`, { userId: org.adminUserId });
    await call('POST', `alerts/${alert.id}/resolve`);
    await t.request('DELETE', `alerts/${alert.id}`, { apiKey: org.apiKey });
    await call('POST', `users/${user.id}/deactivate`);
    await call('POST', `users/${user.id}/activate`);
    await t.request('DELETE', `projects/${project.id}`, { apiKey: org.apiKey });
    const key = await t.app.services.apiKeys.create(org.orgId, { name: 'CI' });
    await t.app.services.apiKeys.revoke(key.key.id);
    const other = await call('POST', 'webhooks', { name: 'Other', url: receiver.url('/other'), events: ['alert.created'] });
    await call('PATCH', `webhooks/${other.id}`, { isActive: false });
    await call('PATCH', `webhooks/${other.id}`, { isActive: true });
    await t.request('DELETE', `webhooks/${other.id}`, { apiKey: org.apiKey });
    await t.app.services.organizations.reportBilling(org.orgId, 'trial_expired', null);
    await t.app.services.organizations.reportBilling(org.orgId, 'payment_failed', 'card declined');
    await t.app.services.organizations.setPlan(org.orgId, 'enterprise');
    await t.app.services.organizations.setPlan(org.orgId, 'free');

    const expected = [
      'webhook.created', 'project.created', 'project.updated', 'alert.created', 'alert.critical', 'alert.acknowledged', 'user.invited',
      'alert.assigned', 'alert.resolved', 'alert.deleted', 'user.deactivated', 'user.activated', 'project.deleted', 'api_key.created',
      'api_key.deleted', 'webhook.created', 'webhook.disabled', 'webhook.enabled', 'webhook.deleted', 'billing.trial_expired',
      'billing.payment_failed', 'billing.subscription_activated', 'billing.subscription_cancelled',
    ];
    const received = () => receiver.received('/all');
    await waitFor(received, (requests) => requests.length >= expected.length, 'every event').catch(() => undefined);
    const payloads = received().map((request) => JSON.parse(request.body) as Payload);
    expect(payloads.map((p) => p.event).sort()).toEqual([...expected].sort());
    expect(received().every((request) => serviceSignatureValid(all.secret, request.headers, request.body))).toBe(true);
    expect(payloads.every((p) => p.orgId === org.orgId)).toBe(true);

    const dataOf = (event: string) => payloads.filter((p) => p.event === event).map((p) => p.data);
    expect(dataOf('alert.resolved')[0]).toMatchObject({ id: alert.id, title: 'Down', severity: 'critical', status: 'resolved', projectId: project.id });
    expect(dataOf('alert.assigned')[0]).toMatchObject({ assigneeId: org.adminUserId });
    expect(dataOf('project.updated')[0]).toMatchObject({ id: project.id, name: 'Shop', area: 'payments' });
    expect(dataOf('billing.payment_failed')[0]).toEqual({ orgId: org.orgId, plan: 'business', previousPlan: null, reason: 'card declined' });
    expect(dataOf('billing.subscription_activated')[0]).toMatchObject({ plan: 'enterprise', previousPlan: 'business' });
    expect(dataOf('billing.subscription_cancelled')[0]).toMatchObject({ plan: 'free', previousPlan: 'enterprise' });
    expect(dataOf('webhook.disabled')[0]).toMatchObject({ id: other.id, isActive: false, disabledReason: 'Disabled through the API.' });
    expect(dataOf('webhook.deleted')[0]).toMatchObject({ id: other.id, name: 'Other' });
    expect(dataOf('api_key.created')[0]).toMatchObject({ id: key.key.id, name: 'CI' });
    const everything = JSON.stringify(payloads);
    expect(everything).not.toContain('whsec_');
    expect(everything).not.toContain(key.apiKey);
    expect(everything).not.toMatch(/svc_live_[0-9a-f]{64}/);
  });
});
