import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { launchBrowser, seriousAccessibilityViolations, type TestBrowser } from './support/browser.js';
import { type Alert, createAlert, createProject, type One, type Project } from './support/resources.js';
import { acceptLink, type SignedIn } from './support/sessions.js';

/** Set VIGIL_CONSOLE_SCREENSHOTS=1 to refresh the pictures in docs/console/ (docs/console.md shows them). */
const screenshotDir = process.env.VIGIL_CONSOLE_SCREENSHOTS ? new URL('../../../docs/console/', import.meta.url).pathname : undefined;

type Scheme = 'light' | 'dark';
interface View {
  name: string;
  width: number;
  scheme: Scheme;
  page: Page;
}

describe('the console for the person on call, in Chromium at 1280 and 375 px, light and dark', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: TestBrowser;
  let ada: SignedIn;
  let bo: SignedIn;
  let boId: string;
  let project: Project;
  const views: View[] = [];

  /** A page signed in with a session made over the API (the sign-in form has its own test). */
  async function viewFor(who: SignedIn, width: number, scheme: Scheme): Promise<View> {
    const page = await browser.newPage({ colorScheme: scheme, viewport: { width, height: width < 500 ? 800 : 900 }, bypassCSP: true });
    const [name, value] = who.cookie.split('=');
    await page.context().addCookies([{ name, value, url: t.baseUrl }]);
    return { name: `${width}-${scheme}`, width, scheme, page };
  }

  /**
   * What every page state must pass: axe (no serious or critical violation), no sideways scroll of
   * the page, and on a phone every visible control at least 44 px tall. Pictured when asked.
   */
  async function check(view: View, state: string): Promise<void> {
    const { page } = view;
    await page.locator('h1').first().waitFor();
    expect(await seriousAccessibilityViolations(page), `${state} at ${view.name}`).toEqual([]);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(sideways, `${state} at ${view.name} scrolls sideways`).toBeLessThanOrEqual(0);
    if (view.width < 500) {
      const small = await page.evaluate(() =>
        [...document.querySelectorAll('button, select, input:not([type=checkbox]):not([type=radio]), nav a, main a, summary')]
          .filter((element) => element.getClientRects().length > 0 && !element.closest('vigil-dashboard, p, li:not(nav li), dd'))
          .map((element) => ({ text: (element.textContent || element.getAttribute('aria-label') || element.tagName).trim().slice(0, 40), height: element.getBoundingClientRect().height }))
          .filter((target) => target.height < 44),
      );
      expect(small, `${state} at ${view.name}: touch targets under 44 px`).toEqual([]);
    }
    if (screenshotDir && (view.name === '1280-light' || view.name === '375-dark')) {
      await page.screenshot({ path: `${screenshotDir}${state}-${view.width}.png`, fullPage: view.width > 500 });
    }
  }

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business', { name: 'Acme', adminEmail: 'ada@acme.test', founderJoins: false, rateLimitPerMinute: 100_000 });
    ada = await acceptLink(t, org.inviteUrl!);
    await ada.call('PATCH', `users/${org.adminUserId}`, { name: 'Ada Lovelace' });
    const invited = await ada.call<One<{ id: string; inviteUrl: string }>>('POST', 'users', { email: 'bo@acme.test', role: 'member', name: 'Bo Chen' });
    boId = invited.body.data.id;
    bo = await acceptLink(t, invited.body.data.inviteUrl);
    project = await createProject(t, org, 'Checkout');
    browser = await launchBrowser();
    for (const width of [1280, 375]) for (const scheme of ['light', 'dark'] as const) views.push(await viewFor(ada, width, scheme));
    if (screenshotDir) mkdirSync(screenshotDir, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows a new alert on the open alerts page as soon as it is committed, through the stream, without polling', async () => {
    const { page } = views[3];
    await page.goto(`${t.baseUrl}/alerts`);
    await page.getByTestId('live').getByText('Live').waitFor();
    const listReads: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/v1\/alerts\?/.test(request.url())) listReads.push(request.url());
    });
    const created = await createAlert(t, org, { title: 'Checkout latency over 2 s', severity: 'critical', projectId: project.id });
    await page.getByRole('link', { name: 'Checkout latency over 2 s' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: /1 critical/ }).waitFor();
    expect(listReads).toEqual([]);
    await check(views[3], 'alerts');

    // Another person acknowledges it elsewhere: the row changes by itself.
    await bo.call('POST', `alerts/${created.id}/acknowledge`);
    await page.locator(`tr[data-alert="${created.id}"]`).getByText('acknowledged', { exact: true }).waitFor({ timeout: 10_000 });
    expect(listReads).toEqual([]);
  }, 60_000);

  it("tells an alert's story on its own page: acknowledged, assigned and resolved by two people, live, and after a reload", async () => {
    const alert = await createAlert(t, org, { title: 'Payments queue backing up', severity: 'high', projectId: project.id, description: 'Depth 12,000 and rising', value: '12000', threshold: '5000' });
    const other = await createAlert(t, org, { title: 'Card declines up', severity: 'medium', projectId: project.id });
    const adaPage = views[0].page;
    const boView = await viewFor(bo, 375, 'dark');
    await adaPage.goto(`${t.baseUrl}/alerts`);
    await adaPage.getByRole('link', { name: 'Payments queue backing up' }).click();
    await adaPage.getByRole('heading', { level: 1, name: 'Payments queue backing up' }).waitFor();
    expect(new URL(adaPage.url()).pathname).toBe(`/alerts/${alert.id}`);
    await boView.page.goto(`${t.baseUrl}/alerts/${alert.id}`);
    await boView.page.getByRole('heading', { level: 1, name: 'Payments queue backing up' }).waitFor();
    await boView.page.getByTestId('live').getByText('Live').waitFor();
    await adaPage.getByTestId('live').getByText('Live').waitFor();
    await adaPage.getByRole('link', { name: 'Card declines up' }).waitFor();
    await check(views[0], 'alert');

    const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' }).locator('li').allTextContents();
    await adaPage.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => timeline(boView.page), { timeout: 10_000 }).toEqual([expect.stringMatching(/^Created by API key/), expect.stringMatching(/^Acknowledged by Ada Lovelace/)]);
    await boView.page.getByRole('combobox', { name: 'Assignee of Payments queue backing up' }).selectOption({ label: 'bo@acme.test' });
    await boView.page.getByRole('button', { name: 'Resolve' }).click();
    const story = [
      expect.stringMatching(/^Created by API key/),
      expect.stringMatching(/^Acknowledged by Ada Lovelace/),
      expect.stringMatching(/^Assigned to bo@acme\.test by Bo Chen/),
      expect.stringMatching(/^Resolved by Bo Chen/),
    ];
    await expect.poll(() => timeline(adaPage), { timeout: 10_000 }).toEqual(story);
    await adaPage.locator('.badges').getByText('resolved', { exact: true }).waitFor();
    await check(boView, 'alert');

    await adaPage.reload();
    await adaPage.getByRole('heading', { level: 1, name: 'Payments queue backing up' }).waitFor();
    await expect.poll(() => timeline(adaPage)).toEqual(story);
    await expect(adaPage.getByText('Depth 12,000 and rising').isVisible()).resolves.toBe(true);
    await expect(adaPage.getByRole('link', { name: 'Card declines up' }).getAttribute('href')).resolves.toBe(`/alerts/${other.id}`);
    await boView.page.context().close();
  }, 90_000);

  it('keeps filters and paging in the address, loads more with the cursor, and counts open alerts by severity', async () => {
    const quiet = await createProject(t, org, 'Batch jobs');
    for (let i = 0; i < 27; i += 1) await createAlert(t, org, { title: `Nightly job ${i} late`, severity: i % 3 === 0 ? 'low' : 'info', projectId: quiet.id });
    const view = views[2];
    const { page } = view;
    await page.goto(`${t.baseUrl}/alerts?projectId=${quiet.id}`);
    const rows = page.locator('table.cards tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    await expect.poll(() => page.getByRole('list', { name: 'Open alerts by severity' }).textContent()).toMatch(/0 critical.*0 high.*0 medium.*9 low.*18 info/);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(27);
    await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);

    await page.getByRole('button', { name: /9 low/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('severity')).toBe('low');
    await expect.poll(() => rows.count()).toBe(9);
    await page.getByLabel('Title contains').fill('job 2');
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('job 2');
    // "job 2" and "job 24" are low (every third); "job 21" is low too.
    await expect.poll(async () => (await rows.locator('.title-cell').allTextContents()).sort()).toEqual(['Nightly job 21 late', 'Nightly job 24 late']);
    await check(view, 'alerts-filtered');
    await page.reload();
    await expect.poll(async () => (await rows.locator('.title-cell').allTextContents()).sort()).toEqual(['Nightly job 21 late', 'Nightly job 24 late']);
    await expect(page.getByLabel('Title contains').inputValue()).resolves.toBe('job 2');
    await expect(page.getByLabel('Severity', { exact: true }).inputValue()).resolves.toBe('low');
  }, 90_000);
});
