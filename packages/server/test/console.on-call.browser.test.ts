import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { colourRules, holdReads, launchBrowser, seriousAccessibilityViolations, type TestBrowser } from './support/browser.js';
import { createAlert, createProject, type One, type Project } from './support/resources.js';
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

/** The views docs/console.md pictures: light on a desktop, dark on a phone. */
const isPictured = (view: View) => view.name === '1280-light' || view.name === '375-dark';

describe('the console for the person on call, in Chromium at 1280 and 375 px, light and dark', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: TestBrowser;
  let ada: SignedIn;
  let bo: SignedIn;
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
   * the page, and on a phone every visible control at least 44 px tall. Pictured when asked. A
   * page's markup is the same in both schemes (they differ in CSS only), so every rule runs in the
   * pictured scheme of each width (light at 1280 px, dark at 375 px) and the colour rules in the other.
   */
  async function check(view: View, state: string, options: { pictured?: boolean } = {}): Promise<void> {
    const { page } = view;
    await page.locator('h1').first().waitFor();
    const rules = isPictured(view) ? undefined : colourRules;
    expect(await seriousAccessibilityViolations(page, rules), `${state} at ${view.name}`).toEqual([]);
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
    // Pages seen in every view are pictured light at 1280 px and dark at 375 px; the others where they are.
    if (screenshotDir && (options.pictured || isPictured(view))) {
      await page.screenshot({ path: `${screenshotDir}${state}-${view.width}.png`, fullPage: view.width > 500 && state !== 'docs' });
    }
  }

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg('business', { name: 'Acme', adminEmail: 'ada@acme.test', founderJoins: false, rateLimitPerMinute: 100_000 });
    ada = await acceptLink(t, org.inviteUrl!);
    await ada.call('PATCH', `users/${org.adminUserId}`, { name: 'Ada Lovelace' });
    const invited = await ada.call<One<{ id: string; inviteUrl: string }>>('POST', 'users', { email: 'bo@acme.test', role: 'member', name: 'Bo Chen' });
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
    await check(views[3], 'alerts', { pictured: true });

    // Another person acknowledges it elsewhere: the row changes by itself.
    await bo.call('POST', `alerts/${created.id}/acknowledge`);
    await page.locator(`tr[data-alert="${created.id}"]`).getByText('acknowledged', { exact: true }).waitFor({ timeout: 10_000 });
    expect(listReads).toEqual([]);
  }, 60_000);

  it('keeps an alert that comes through the stream while the list is being read, whichever read answers last', async () => {
    const quiet = await createProject(t, org, 'Reports');
    const view = await viewFor(ada, 1280, 'light');
    const { page } = view;
    // Both first-page reads (when the page opens and when its stream opens) are read from the server
    // before the alert exists, and answered only after the stream has brought it.
    const firstPageReads = await holdReads(page, /\/api\/v1\/alerts\?/, async () => undefined);
    await page.goto(`${t.baseUrl}/alerts?projectId=${quiet.id}`);
    await page.getByTestId('live').getByText('Live').waitFor();
    await expect.poll(() => firstPageReads.seen().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const countsReadAfterChange = page.waitForRequest(/\/api\/v1\/alerts\/open-counts\?/);
    await createAlert(t, org, { title: 'Weekly report not sent', severity: 'high', projectId: quiet.id });
    await countsReadAfterChange;
    await firstPageReads.answerNewestFirst();
    await page.getByRole('link', { name: 'Weekly report not sent' }).waitFor({ timeout: 10_000 });
    await expect(page.locator('table.cards tbody tr').count()).resolves.toBe(1);
    await page.context().close();
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
    await expect.poll(() => timeline(adaPage), { timeout: 15_000 }).toEqual(story);
    await expect(adaPage.getByText('Depth 12,000 and rising').isVisible()).resolves.toBe(true);
    await expect(adaPage.getByRole('link', { name: 'Card declines up' }).getAttribute('href')).resolves.toBe(`/alerts/${other.id}`);
    await boView.page.context().close();
  }, 90_000);

  it("shows an alert's latest state when two reads of it answer out of order", async () => {
    const quiet = await createProject(t, org, 'Backups');
    const alert = await createAlert(t, org, { title: 'Nightly backup late', severity: 'low', projectId: quiet.id });
    const view = await viewFor(ada, 1280, 'light');
    const { page } = view;
    await page.goto(`${t.baseUrl}/alerts/${alert.id}`);
    await page.getByTestId('live').getByText('Live').waitFor();
    await page.locator('.badges').getByText('active', { exact: true }).waitFor();
    // Each change makes the page read the alert again. The reads are held until one has read it
    // resolved, then answered newest first: the read after the acknowledgement answers last.
    const alertReads = await holdReads(page, `${t.baseUrl}/api/v1/alerts/${alert.id}`, async (response) => ((await response.json()) as One<{ status: string }>).data.status);
    const readAs = (status: string) => () => alertReads.seen().includes(status);
    await bo.call('POST', `alerts/${alert.id}/acknowledge`);
    await expect.poll(readAs('acknowledged'), { timeout: 10_000 }).toBe(true);
    await bo.call('POST', `alerts/${alert.id}/resolve`);
    await expect.poll(readAs('resolved'), { timeout: 10_000 }).toBe(true);
    await alertReads.answerNewestFirst();
    await page.locator('.badges').getByText('resolved', { exact: true }).waitFor({ timeout: 10_000 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await expect(page.locator('.badges').getByText('resolved', { exact: true }).isVisible()).resolves.toBe(true);
    await page.context().close();
  }, 60_000);

  it('keeps filters and paging in the address, loads more with the cursor, and counts open alerts by severity', async () => {
    const quiet = await createProject(t, org, 'Batch jobs');
    for (let i = 0; i < 27; i += 1) await createAlert(t, org, { title: `Nightly job ${i} late`, severity: i % 3 === 0 ? 'low' : 'info', projectId: quiet.id });
    const view = views[2];
    const { page } = view;
    await page.goto(`${t.baseUrl}/alerts?projectId=${quiet.id}`);
    const rows = page.locator('table.cards tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(25);
    await expect.poll(() => page.getByRole('list', { name: 'Open alerts by severity' }).textContent(), { timeout: 15_000 }).toMatch(/0 critical.*0 high.*0 medium.*9 low.*18 info/);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(27);
    await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);

    await page.getByRole('button', { name: /9 low/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('severity'), { timeout: 15_000 }).toBe('low');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(9);
    await page.getByLabel('Title contains').fill('job 2');
    await expect.poll(() => new URL(page.url()).searchParams.get('q'), { timeout: 15_000 }).toBe('job 2');
    // "job 2" and "job 24" are low (every third); "job 21" is low too.
    await expect.poll(async () => (await rows.locator('.title-cell').allTextContents()).sort(), { timeout: 15_000 }).toEqual(['Nightly job 21 late', 'Nightly job 24 late']);
    await check(view, 'alerts-filtered', { pictured: true });
    await page.reload();
    await expect.poll(async () => (await rows.locator('.title-cell').allTextContents()).sort(), { timeout: 15_000 }).toEqual(['Nightly job 21 late', 'Nightly job 24 late']);
    await expect(page.getByLabel('Title contains').inputValue()).resolves.toBe('job 2');
    await expect(page.getByLabel('Severity', { exact: true }).inputValue()).resolves.toBe('low');
  }, 90_000);

  it('builds a dashboard of three kinds of widget by clicking, shows the SQL guard inline, and renders the same in the embed', async () => {
    const view = views[1];
    const { page } = view;
    await page.goto(`${t.baseUrl}/dashboards`);
    await page.getByLabel('Name').fill('On-call board');
    await page.getByLabel('Project').selectOption({ label: 'Checkout' });
    await page.getByRole('button', { name: 'Create and add widgets' }).click();
    await page.getByRole('heading', { level: 1, name: 'On-call board' }).waitFor();
    const dashboardId = new URL(page.url()).pathname.split('/').pop()!;
    const saved = async () => {
      await page.getByTestId('save-state').getByText('All changes saved').waitFor({ timeout: 15_000 });
    };
    const widget = (index: number) => page.locator(`fieldset[data-widget="${index}"]`);

    // 1: a bar chart of the project's alerts by severity (the new widget's default).
    await page.getByRole('button', { name: 'Add a widget' }).click();
    await widget(0).getByLabel('Title', { exact: true }).fill('Alerts by severity');
    // 2: a number — open alerts that are active.
    await page.getByRole('button', { name: 'Add a widget' }).click();
    await widget(1).getByLabel('Title', { exact: true }).fill('Active alerts');
    await widget(1).getByLabel('Kind', { exact: true }).selectOption('number');
    await widget(1).getByRole('button', { name: 'Add a filter' }).click();
    await widget(1).getByLabel('Column', { exact: true }).selectOption('status');
    await widget(1).getByLabel('Value', { exact: true }).fill('active');
    await widget(1).getByLabel('Value', { exact: true }).blur();
    // 3: a table from SQL; first a statement the guard refuses, shown at the widget.
    await page.getByRole('button', { name: 'Add a widget' }).click();
    await widget(2).getByLabel('Title', { exact: true }).fill('Alerts per status');
    await widget(2).getByLabel('Kind', { exact: true }).selectOption('table');
    await widget(2).getByLabel('Query', { exact: true }).selectOption('sql');
    await widget(2).getByLabel(/^SQL/).fill('DELETE FROM alerts');
    await widget(2).getByRole('alert').waitFor({ timeout: 15_000 });
    expect(await widget(2).getByRole('alert').textContent()).toMatch(/^Not saved: .*SELECT/i);
    await check(view, 'dashboard-builder-refused', { pictured: true });
    await widget(2).getByLabel(/^SQL/).fill('SELECT status, count(*) AS alerts FROM alerts GROUP BY status ORDER BY status');
    await saved();
    await expect(widget(2).getByRole('alert').count()).resolves.toBe(0);

    // Reorder: the number first.
    await widget(1).getByRole('button', { name: 'Move up' }).click();
    // The page marks the move unsaved in an effect after the click, so "All changes saved" can still
    // be showing from the save before: the stored order is what settles it.
    const storedOrder = async () =>
      (await ada.call<One<{ widgets: { title: string; kind: string }[] }>>('GET', `dashboards/${dashboardId}`)).body.data.widgets.map((one) => `${one.kind} ${one.title}`);
    await expect.poll(storedOrder, { timeout: 15_000 }).toEqual(['number Active alerts', 'bar Alerts by severity', 'table Alerts per status']);
    await saved();

    /** Each widget as the component shows it: the number, the chart's data table, the table. */
    const rendered = (target: Page) =>
      target.locator('vigil-dashboard').evaluate((element) =>
        [...element.shadowRoot!.querySelectorAll('.number, table')].map((part) => (part.textContent ?? '').replace(/\s+/g, ' ').trim()),
      );
    await expect.poll(() => rendered(page), { timeout: 15_000 }).toEqual([
      expect.stringMatching(/^\d+$/),
      expect.stringContaining('Alerts by severity'),
      expect.stringContaining('Alerts per status'),
    ]);
    const inPreview = await rendered(page);
    await check(view, 'dashboard-builder', { pictured: true });
    const phone = views[3].page;
    await phone.goto(page.url());
    await expect.poll(() => rendered(phone), { timeout: 15_000 }).toEqual(inPreview);
    await check(views[3], 'dashboard-builder', { pictured: true });

    await page.getByRole('button', { name: 'Mint a token and show the snippet' }).click();
    const snippet = (await page.getByTestId('secret').textContent())!;
    const token = /token="([^"]+)"/.exec(snippet)![1];
    const embedded = await browser.newPage();
    await embedded.goto(`${t.baseUrl}/embed/dashboards/${dashboardId}?token=${token}`);
    await expect.poll(() => rendered(embedded), { timeout: 15_000 }).toEqual(inPreview);
    await embedded.context().close();
  }, 120_000);

  it('passes axe on every page at both widths, light and dark, with the menu collapsed on a phone and the theme remembered', async () => {
    const pages = [
      ['/alerts', 'Alerts'],
      ['/projects', 'Projects'],
      ['/datasets', 'Datasets'],
      ['/chat', 'AI chat'],
      ['/dashboards', 'Dashboards'],
      ['/connections', 'Connections'],
      ['/exports', 'Exports'],
      ['/usage', 'Usage'],
      ['/members', 'Members'],
      ['/webhooks', 'Webhooks'],
      ['/developers/api-keys', 'API keys'],
    ];
    for (const view of views) {
      for (const [path, title] of pages) {
        await view.page.goto(t.baseUrl + path);
        await view.page.getByRole('heading', { level: 1, name: title }).waitFor();
        await check(view, path.slice(1).replace('/', '-'));
      }
      const menu = view.page.getByRole('button', { name: 'Menu' });
      const projectsLink = view.page.getByRole('navigation').getByRole('link', { name: 'Projects' });
      if (view.width < 500) {
        await expect(projectsLink.isVisible()).resolves.toBe(false);
        await menu.click();
        await check(view, 'menu-open');
        await projectsLink.click();
        await view.page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
        await expect(projectsLink.isVisible()).resolves.toBe(false);
      } else {
        await expect(menu.isVisible()).resolves.toBe(false);
        await expect(projectsLink.isVisible()).resolves.toBe(true);
      }
    }

    const { page } = views[0];
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Dark mode' }).click();
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.getByRole('button', { name: 'Dark mode' }).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await background()).not.toBe(light);
    expect(await background()).toBe(await views[1].page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor));
    await page.getByRole('button', { name: 'Dark mode' }).click();
    expect(await background()).toBe(light);
    expect(browser.offLoopbackRequests()).toEqual([]);
  }, 300_000);

  it('serves Vigil\'s own API reference at /docs: axe-clean and readable at both widths, light and dark', async () => {
    for (const view of views) {
      await view.page.goto(`${t.baseUrl}/docs`);
      await view.page.getByRole('heading', { level: 1, name: 'Vigil API reference' }).waitFor();
      await view.page.getByRole('heading', { name: /List alerts/ }).first().waitFor();
      await check(view, 'docs');
    }
  }, 120_000);
});
