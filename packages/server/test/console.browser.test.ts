import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { aiConfigFor, dropProjectData } from './support/ai.js';
import { startTestApp, testSecretKey, type TestApp, type TestOrg } from './support/app.js';
import { launchBrowser, seriousAccessibilityViolations, type TestBrowser } from './support/browser.js';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';
import { Receiver } from './support/webhooks/receiver.js';
import { testTls } from './support/webhooks/tls.js';
import { needs } from './support/requirements.js';

/** Set VIGIL_CONSOLE_SCREENSHOTS=1 to refresh the pictures in docs/console/ (docs/console.md shows them). */
const screenshotDir = process.env.VIGIL_CONSOLE_SCREENSHOTS ? new URL('../../../docs/console/', import.meta.url).pathname : undefined;
const password = 'correct horse battery';

describe.runIf(needs('chromium', 'the web console in Chromium'))('the web console in Chromium', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: TestBrowser;
  let admin: Page;
  let fake: FakeLlm;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  const projectIds: string[] = [];

  beforeAll(async () => {
    fake = await startFakeLlm();
    receiver = await Receiver.start();
    receiver.respond = (request) => (request.path === '/flaky' && receiver.received('/flaky').length === 1 ? { status: 503, body: 'down for a moment' } : { status: 200, body: 'thanks' });
    t = await startTestApp('pglite', { config: { ...aiConfigFor(fake), webhookAllowPrivate: true } });
    worker = await DeliveryWorker.start({
      db: t.database.db,
      clock: t.clock,
      config: { secretKey: testSecretKey, webhookTimeoutMs: 2000, webhookRetryScheduleMs: [0, 3_600_000, 3_600_000, 3_600_000, 3_600_000], webhookAllowPrivate: true },
      ca: [testTls().ca],
      pollIntervalMs: 100,
      perWebhookInFlight: 2,
      maxInFlight: 4,
    });
    org = await t.createOrg('business', { name: 'Acme', adminEmail: 'ada@acme.test', founderJoins: false });
    browser = await launchBrowser();
    admin = await browser.newPage({ bypassCSP: true });
    if (screenshotDir) mkdirSync(screenshotDir, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await dropProjectData(t, projectIds);
    await t?.close();
    await receiver?.close();
    await fake?.close();
  });

  /** Every page passes axe with no serious or critical violation, and is pictured when asked. */
  async function check(page: Page, name: string): Promise<void> {
    await page.locator('h1').first().waitFor();
    expect(await seriousAccessibilityViolations(page), name).toEqual([]);
    if (screenshotDir) await page.screenshot({ path: `${screenshotDir}${name}.png`, fullPage: true });
  }

  async function open(page: Page, label: string): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: label }).click();
    await page.getByRole('heading', { level: 1, name: label.replace('Developers → ', '') }).waitFor();
  }

  it('the admin follows the invitation link, sets a password and lands on the alerts', async () => {
    await admin.goto(t.baseUrl + new URL(org.inviteUrl!).pathname + new URL(org.inviteUrl!).hash);
    await admin.getByText('ada@acme.test').waitFor();
    await check(admin, 'welcome');
    await admin.getByLabel('New password (at least 10 characters)').fill(password);
    await admin.getByLabel('Repeat the password').fill(password);
    await admin.getByRole('button', { name: 'Set password and sign in' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    expect(new URL(admin.url()).pathname).toBe('/alerts');
    await admin.getByText('No alerts match').waitFor();
    await check(admin, 'alerts-empty');
  }, 60_000);

  it('creates an API key that is shown once, works against the REST API, and is revoked', async () => {
    await open(admin, 'Developers → API keys');
    await admin.getByLabel('Key name').fill('Deploy bot');
    await admin.getByRole('button', { name: 'Create key' }).click();
    const key = (await admin.getByTestId('secret').textContent())!;
    expect(key).toMatch(/^svc_live_[0-9a-f]{64}$/);
    await expect(admin.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await check(admin, 'api-keys');
    const project = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: key, body: { name: 'Checkout' } });
    expect(project.status).toBe(201);
    projectIds.push(project.body.data.id);

    await admin.reload();
    await admin.getByRole('cell', { name: 'Deploy bot', exact: true }).waitFor();
    expect(await admin.content()).not.toContain(key);

    admin.once('dialog', (dialog) => void dialog.accept());
    await admin.getByRole('button', { name: 'Revoke Deploy bot' }).click();
    await admin.getByRole('cell', { name: 'Deploy bot', exact: true }).waitFor({ state: 'detached' });
    await expect.poll(async () => (await t.request('GET', 'projects', { apiKey: key })).status, { timeout: 5000 }).toBe(401);
  }, 60_000);

  it('invites a member, who accepts, signs in, and cannot open API keys (in the page or on the server)', async () => {
    await open(admin, 'Members');
    await admin.getByLabel('Email').fill('bo@acme.test');
    await admin.getByRole('combobox', { name: 'Role' }).first().selectOption('member');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const inviteUrl = (await admin.getByTestId('secret').textContent())!;
    await admin.getByRole('cell', { name: 'bo@acme.test', exact: true }).waitFor();
    await check(admin, 'members');

    const member = await browser.newPage({ bypassCSP: true });
    const link = new URL(inviteUrl);
    await member.goto(t.baseUrl + link.pathname + link.hash);
    await member.getByLabel('New password (at least 10 characters)').fill('member password 1');
    await member.getByLabel('Repeat the password').fill('member password 1');
    await member.getByRole('button', { name: 'Set password and sign in' }).click();
    await member.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    await member.getByRole('button', { name: 'Sign out' }).click();
    await member.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
    await check(member, 'sign-in');
    await member.getByLabel('Email').fill('bo@acme.test');
    await member.getByLabel('Password').fill('member password 1');
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();

    await expect(member.getByRole('link', { name: 'Developers → API keys' }).count()).resolves.toBe(0);
    await member.goto(`${t.baseUrl}/developers/api-keys`);
    await member.getByRole('heading', { name: 'Not available to your role' }).waitFor();
    const direct = await member.evaluate(async () => {
      const response = await fetch('/api/v1/api-keys');
      return { status: response.status, body: await response.json() };
    });
    expect(direct).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    await member.context().close();
  }, 90_000);

  it("shows a webhook's delivery history with real attempts from a local receiver, and a retry", async () => {
    await open(admin, 'Webhooks');
    await expect(admin.getByText(/accepted only when the server runs with VIGIL_WEBHOOK_ALLOW_PRIVATE=true/).isVisible()).resolves.toBe(true);
    await check(admin, 'webhooks-empty');
    await admin.getByLabel('Name').fill('Ops receiver');
    await admin.getByLabel('Endpoint URL').fill(receiver.url('/flaky'));
    await admin.getByLabel('project.created').check();
    await admin.getByRole('button', { name: 'Create webhook' }).click();
    expect(await admin.getByTestId('secret').textContent()).toMatch(/^whsec_/);
    await admin.getByRole('button', { name: 'Done' }).click();

    const created = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name: 'Payments' } });
    projectIds.push(created.body.data.id);
    await expect.poll(() => receiver.received('/flaky').length, { timeout: 20_000 }).toBe(1);

    await admin.getByRole('button', { name: 'Deliveries' }).click();
    const attempts = admin.locator('li.attempt');
    await expect.poll(async () => (await attempts.allTextContents()).join('|'), { timeout: 20_000 }).toContain('503');
    await admin.getByRole('button', { name: 'Resend now' }).click();
    await expect.poll(() => receiver.received('/flaky').length, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(
        async () => {
          await admin.getByRole('button', { name: 'Refresh' }).click();
          return (await attempts.allTextContents()).join('|');
        },
        { timeout: 20_000 },
      )
      .toMatch(/Attempt 2 \(manual\).*200/);
    await expect(admin.locator('article.delivery .status', { hasText: 'delivered' }).first().isVisible()).resolves.toBe(true);

    // Each attempt opens to the request as sent and the receiver's answer.
    await admin.getByText('Request and response of attempt 2').click();
    const second = admin.locator('li.attempt[data-attempt="2"]');
    await expect(second.locator('[data-part=request-body]').textContent()).resolves.toContain('"event": "project.created"');
    await expect(second.locator('[data-part=response-body]').textContent()).resolves.toBe('thanks');
    const sentHeaders = (await second.locator('[data-part=request-headers]').textContent())!;
    const received = receiver.received('/flaky')[1];
    expect(sentHeaders).toContain(`webhook-signature: ${received.headers['webhook-signature']}`);
    expect(sentHeaders).toMatch(/x-service-signature: sha256=[0-9a-f]{64}/i);
    // Filtering by status: the delivery is delivered now, so "failed" shows none.
    await admin.getByLabel('Delivery status').selectOption('failed');
    await admin.getByText('No deliveries match.').waitFor();
    await admin.getByLabel('Delivery status').selectOption('delivered');
    await attempts.first().waitFor();
    await check(admin, 'webhooks');
  }, 90_000);

  it('uploads a CSV with a progress bar and shows its rows and column types', async () => {
    await open(admin, 'Datasets');
    await admin.getByLabel('Project').selectOption({ label: 'Checkout' });
    const rows = ['region,orders,shipped_on', ...Array.from({ length: 2000 }, (_, i) => `region-${i % 7},${i},2026-05-${String((i % 28) + 1).padStart(2, '0')}`)];
    await admin.getByLabel('File (CSV or XLSX)').setInputFiles({ name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
    // The bar may come and go between two polls on loopback, so the page itself notes that it appeared.
    await admin.evaluate(() => {
      const seen = window as unknown as { progressSeen: boolean };
      seen.progressSeen = false;
      new MutationObserver(() => {
        if (document.querySelector('progress')) seen.progressSeen = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await admin.getByRole('button', { name: 'Upload' }).click();
    await admin.getByRole('table', { name: 'First rows of orders' }).waitFor({ timeout: 30_000 });
    const header = await admin.getByRole('table', { name: 'First rows of orders' }).locator('th').allTextContents();
    expect(header).toEqual(['region text', 'orders integer', 'shipped_on date']);
    await admin.getByRole('cell', { name: 'region-1', exact: true }).first().waitFor();
    expect(await admin.evaluate(() => (window as unknown as { progressSeen: boolean }).progressSeen)).toBe(true);
    await check(admin, 'datasets');
  }, 90_000);

  it('answers an AI question (through the loopback fake provider) and keeps it in the history', async () => {
    fake.script({ content: 'Checkout has 2,000 orders across 7 regions.' });
    await open(admin, 'AI chat');
    await admin.getByLabel('Project').selectOption({ label: 'Checkout' });
    await admin.getByText('No questions yet').waitFor();
    await admin.getByLabel('Your question').fill('How many orders are there?');
    await admin.getByRole('button', { name: 'Ask' }).click();
    await admin.getByText('Checkout has 2,000 orders across 7 regions.').waitFor({ timeout: 30_000 });
    await admin.getByText('How many orders are there?').waitFor();
    await check(admin, 'chat');
  }, 60_000);

  it('shows new alerts live and lets them be acknowledged and resolved', async () => {
    await open(admin, 'Alerts');
    await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { title: 'Checkout latency over 2 s', severity: 'critical', projectId: projectIds[0] } });
    await admin.getByRole('link', { name: 'Checkout latency over 2 s' }).waitFor({ timeout: 15_000 });
    await admin.getByRole('button', { name: 'Acknowledge' }).click();
    await admin.getByRole('cell', { name: 'acknowledged', exact: true }).waitFor();
    await check(admin, 'alerts');
    await admin.getByRole('button', { name: 'Resolve' }).click();
    await admin.getByRole('cell', { name: 'resolved', exact: true }).waitFor();
  }, 60_000);

  it('creates a dashboard, opens it live through <vigil-dashboard> under the console\'s CSP, embeds and deletes it', async () => {
    for (const title of ['Card declines up', 'Slow order confirmations']) {
      const created = await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { title, severity: 'high', projectId: projectIds[0] } });
      expect(created.status).toBe(201);
    }
    await open(admin, 'Dashboards');
    await admin.getByText('No dashboards yet. Create one above').waitFor();
    await admin.getByLabel('Name').fill('Checkout health');
    await admin.getByLabel('Project').selectOption({ label: 'Checkout' });
    await admin.getByRole('button', { name: 'Create and add widgets' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Checkout health' }).waitFor();
    const dashboardId = new URL(admin.url()).pathname.split('/').pop()!;
    await admin.getByRole('button', { name: 'Add a widget' }).click();
    await admin.getByTestId('save-state').getByText('All changes saved').waitFor({ timeout: 15_000 });

    /** The widget's numbers as the component rendered them (its bar chart's data table), label=count per row. */
    const severityRows = (page: Page) =>
      page
        .locator('vigil-dashboard table', { has: page.locator('caption', { hasText: 'Alerts by severity' }) })
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent).join('=')));
    await expect.poll(() => severityRows(admin), { timeout: 20_000 }).toEqual(['high=2', 'critical=1']);
    await expect(admin.locator('vigil-dashboard canvas').count()).resolves.toBe(1);
    await check(admin, 'dashboards');

    // The same view with the console's Content-Security-Policy enforced (the page above bypasses it for axe).
    const strict = await browser.newPage();
    const violations: string[] = [];
    strict.on('console', (message) => message.text().includes('Content Security Policy') && violations.push(message.text()));
    await strict.goto(`${t.baseUrl}/dashboards/${dashboardId}`);
    await strict.getByLabel('Email').fill('ada@acme.test');
    await strict.getByLabel('Password').fill(password);
    await strict.getByRole('button', { name: 'Sign in' }).click();
    await strict.getByRole('heading', { level: 1, name: 'Checkout health' }).waitFor();
    await expect.poll(() => severityRows(strict), { timeout: 20_000 }).toEqual(['high=2', 'critical=1']);
    expect(violations).toEqual([]);
    await strict.context().close();

    await admin.getByRole('button', { name: 'Mint a token and show the snippet' }).click();
    const snippet = (await admin.getByTestId('secret').textContent())!;
    const token = /token="([^"]+)"/.exec(snippet)![1];
    expect(snippet).toContain(`<script src="${t.baseUrl}/embed/sdk.js" async></script>`);
    expect(snippet).toContain(`dashboard="${dashboardId}"`);
    const embedded = await fetch(`${t.baseUrl}/embed/api/dashboards/${dashboardId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(embedded.status).toBe(200);

    await admin.getByRole('link', { name: '← All dashboards' }).click();
    const card = admin.getByRole('article', { name: 'Dashboard Checkout health' });
    await card.getByText('1 widget').waitFor();
    admin.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: 'Delete Checkout health' }).click();
    await card.waitFor({ state: 'detached' });
    await expect.poll(async () => (await t.request('GET', `dashboards/${dashboardId}`, { apiKey: org.apiKey })).status).toBe(404);
  }, 120_000);

  it('shows an alert committed after the page read its list and before its live stream opened', async () => {
    await open(admin, 'Dashboards');
    const stream = '**/api/v1/alerts/stream**';
    const listRead = admin.waitForResponse((response) => new URL(response.url()).pathname === '/api/v1/alerts' && response.request().method() === 'GET');
    // The stream's request is held until the list has been read and the alert committed: only a
    // read of the list once the stream is open can show it.
    await admin.route(stream, async (route) => {
      await listRead;
      await t.request('POST', 'alerts', { apiKey: org.apiKey, body: { title: 'Queue depth over 10,000', severity: 'high', projectId: projectIds[1] } });
      await route.continue();
    });
    await open(admin, 'Alerts');
    await admin.getByRole('link', { name: 'Queue depth over 10,000' }).waitFor({ timeout: 15_000 });
    await admin.getByTestId('live').getByText('Live').waitFor();
    await admin.unroute(stream);
  });

  it('passes axe on the other pages', async () => {
    for (const [label, name] of [
      ['Projects', 'projects'],
      ['Connections', 'connections'],
      ['Exports', 'exports'],
      ['Usage', 'usage'],
    ]) {
      await open(admin, label);
      await check(admin, name);
    }
  }, 90_000);

  it('signs out: the session ends on the server too', async () => {
    const cookie = (await admin.context().cookies()).find((one) => one.name === 'vigil_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await admin.getByRole('button', { name: 'Sign out' }).click();
    await admin.getByRole('heading', { name: 'Sign in to Vigil' }).waitFor();
    const after = await t.request('GET', 'session', { headers: { cookie: `vigil_session=${cookie.value}` } });
    expect(after.status).toBe(401);
    expect(browser.offLoopbackRequests()).toEqual([]);
  }, 30_000);
});
