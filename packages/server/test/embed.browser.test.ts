import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropProjectData } from './support/ai.js';
import { ManualClock, startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { launchBrowser, seriousAccessibilityViolations, type TestBrowser } from './support/browser.js';
import { mintToken, seedDashboard, type SeededDashboard } from './support/dashboards.js';
import { docsExample, embedSnippet, filledIn } from './support/docs-examples.js';
import { createAlert, type One } from './support/resources.js';
import { needs } from './support/requirements.js';

const docsDir = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** CSS a careless host page might have: none of it may reach inside the component. */
const hostileCss = `
  * { font-family: "Comic Sans MS", cursive !important; color: rgb(255, 0, 0) !important; }
  h2, h3 { font-size: 60px; text-transform: uppercase; }
  table, td, th, figure, li { border: 6px dashed rgb(0, 255, 0) !important; }
  vigil-dashboard { line-height: 4; letter-spacing: 5px; }
`;

describe.runIf(needs('chromium', 'the embed component in Chromium'))('the embed component in Chromium, on a page of another origin', () => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestOrg;
  let seeded: SeededDashboard;
  let browser: TestBrowser;
  let host: Server;
  let hostUrl: string;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp('pglite', { clock });
    org = await t.createOrg('business');
    seeded = await seedDashboard(t, org);
    host = createServer((request, response) => {
      const html = pages.get(request.url ?? '');
      response.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    // A whole app, a seeded project and a browser: on a loaded 2-core machine this takes minutes, not seconds.
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    if (host) await new Promise((resolve) => host.close(resolve));
    if (seeded) await dropProjectData(t, [seeded.projectId]);
    await t?.close();
  });

  const mint = (body: Record<string, unknown> = {}) => mintToken(t, org, seeded.dashboard.id, body);

  /** A page on the host origin: the docs' one-tag snippet, with the hostile CSS around it; records the component's events. */
  const hostPage = async (name: string, snippet: string, options: { colorScheme?: 'light' | 'dark' } = {}) => {
    pages.set(`/${name}`, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host ${name}</title><style>${hostileCss}</style></head>
<body><main><h1>Customer app</h1>${snippet}</main>
<script>
  window.vigilEvents = [];
  document.addEventListener('vigil-load', (event) => window.vigilEvents.push({ type: 'load', detail: event.detail }));
  document.addEventListener('vigil-error', (event) => window.vigilEvents.push({ type: 'error', detail: event.detail }));
</script></body></html>`);
    const page = await browser.newPage({ colorScheme: options.colorScheme, viewport: { width: 1100, height: 1000 } });
    const embedReads: number[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/embed/api/')) embedReads.push(response.status());
    });
    await page.goto(`${hostUrl}/${name}`);
    return { page, embedReads };
  };

  const tagSnippet = (token: string, dashboardId = seeded.dashboard.id, theme = 'light') =>
    embedSnippet({ siteUrl: t.baseUrl, token, dashboardId, theme });

  const events = (page: Page) => page.evaluate(() => (window as unknown as { vigilEvents: { type: string; detail: Record<string, unknown> }[] }).vigilEvents);

  /** What every widget shows, read from the DOM: the number, the rows of the chart's data table or visible table, or the alert titles. */
  const shown = (scope: Page | Frame) =>
    scope.locator('vigil-dashboard').evaluate((element) => {
      const root = element.shadowRoot;
      if (!root) return {};
      const result: Record<string, unknown> = {};
      for (const widget of root.querySelectorAll('figure.widget')) {
        const title = widget.querySelector('h3')?.textContent ?? '';
        const kind = widget.getAttribute('data-kind');
        if (kind === 'number') result[title] = widget.querySelector('.number')?.textContent;
        else if (kind === 'alerts') result[title] = [...widget.querySelectorAll('li .alert-title')].map((item) => item.textContent);
        else {
          result[title] = [...widget.querySelectorAll('tbody tr')].map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent));
          const canvas = widget.querySelector('canvas');
          if (canvas && (canvas.width === 0 || canvas.height === 0)) result[`${title} (canvas)`] = 'not drawn';
        }
      }
      return result;
    });

  const expectedWidgets = {
    'Active alerts': '5',
    'Alerts by severity': [['critical', '3'], ['low', '2'], ['high', '1']],
    'Sales by region': [['north', '150'], ['south', '80'], ['east', '50']],
    'Sales per month': [['2026-01-01', '230'], ['2026-02-01', '50']],
    Regions: [['north', '150'], ['south', '80'], ['east', '50']],
    'Latest alerts': ['Typo on page', 'Stale cache', 'Slow search', 'Refund spike', 'Checkout down'],
  };

  it('renders every widget through the one-tag embed, untouched by the host CSS, accessible, with vigil-load', async () => {
    const token = await mint();
    const { page } = await hostPage('tag', tagSnippet(token.token));
    await page.locator('vigil-dashboard figure.widget').first().waitFor();
    expect(await shown(page)).toEqual(expectedWidgets);
    const loads = (await events(page)).filter((event) => event.type === 'load');
    expect(loads[0]?.detail).toMatchObject({ dashboardId: seeded.dashboard.id, widgets: 6 });

    const look = await page.locator('vigil-dashboard h3').first().evaluate((heading) => {
      const style = getComputedStyle(heading);
      return { font: style.fontFamily, color: style.color, size: style.fontSize, spacing: style.letterSpacing, transform: style.textTransform };
    });
    expect(look.font).not.toMatch(/Comic/);
    expect(look.color).not.toBe('rgb(255, 0, 0)');
    expect(look).toMatchObject({ size: '14px', spacing: 'normal', transform: 'none' });
    const cellBorder = await page.locator('vigil-dashboard figure[data-kind="table"] td').first().evaluate((cell) => getComputedStyle(cell).borderBottomStyle);
    expect(cellBorder).toBe('solid');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    const columns = () =>
      page.locator('vigil-dashboard').evaluate((element) => {
        const grid = element.shadowRoot?.querySelector('.grid') as HTMLElement;
        return getComputedStyle(grid).gridTemplateColumns.split(' ').length;
      });
    expect(await columns()).toBe(3);
    await page.setViewportSize({ width: 420, height: 1000 });
    await expect.poll(columns, { timeout: 30_000 }).toBe(1);
  });

  it('switches to the dark theme on the attribute, changing the computed colours', async () => {
    const token = await mint();
    const { page } = await hostPage('themes', tagSnippet(token.token));
    await page.locator('vigil-dashboard figure.widget').first().waitFor();
    const colours = () =>
      page.locator('vigil-dashboard').evaluate((element) => {
        const root = element.shadowRoot?.querySelector('.root') as HTMLElement;
        const card = element.shadowRoot?.querySelector('figure.widget') as HTMLElement;
        return { background: getComputedStyle(root).backgroundColor, text: getComputedStyle(root).color, card: getComputedStyle(card).backgroundColor };
      });
    const light = await colours();
    expect(light).toEqual({ background: 'rgb(255, 255, 255)', text: 'rgb(17, 24, 39)', card: 'rgb(249, 250, 251)' });
    if (process.env.VIGIL_UPDATE_SCREENSHOTS) await page.locator('vigil-dashboard').screenshot({ path: path.join(docsDir, 'dashboard-light.png') });

    await page.locator('vigil-dashboard').evaluate((element) => element.setAttribute('theme', 'dark'));
    await expect.poll(colours, { timeout: 30_000 }).toEqual({ background: 'rgb(17, 24, 39)', text: 'rgb(249, 250, 251)', card: 'rgb(31, 41, 55)' });
    expect(await shown(page)).toEqual(expectedWidgets);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    if (process.env.VIGIL_UPDATE_SCREENSHOTS) await page.locator('vigil-dashboard').screenshot({ path: path.join(docsDir, 'dashboard-dark.png') });
  });

  it('renders the same dashboard in the iframe page, in the theme its URL names', async () => {
    const token = await mint({ theme: 'dark' });
    // The test server's site URL is the default one; the page is served by the test server itself.
    const embedUrl = token.embedUrl.replace(new URL(token.embedUrl).origin, t.baseUrl);
    const { page } = await hostPage('iframe', filledIn(docsExample('iframe'), { siteUrl: t.baseUrl, embedUrl }));
    const frame = page.frames().find((candidate) => candidate.url().includes('/embed/dashboards/'));
    if (!frame) throw new Error('no iframe');
    await frame.locator('vigil-dashboard figure.widget').first().waitFor();
    expect(await shown(frame)).toEqual(expectedWidgets);
    const background = await frame.locator('vigil-dashboard').evaluate((element) => getComputedStyle(element.shadowRoot?.querySelector('.root') as HTMLElement).backgroundColor);
    expect(background).toBe('rgb(17, 24, 39)');

    // On a phone's screen the documented iframe fits: nothing overflows the page sideways.
    await page.setViewportSize({ width: 375, height: 740 });
    const fit = await page.evaluate(() => ({
      iframeRight: document.querySelector('iframe')!.getBoundingClientRect().right,
      pageWidth: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(fit.iframeRight).toBeLessThanOrEqual(fit.viewport);
    expect(fit.pageWidth).toBeLessThanOrEqual(fit.viewport);
  });

  it('shows a readable error, fires vigil-error and reads nothing for an expired, a revoked or another dashboard’s token', async () => {
    const second = await t.request<One<{ id: string }>>('POST', 'dashboards', { apiKey: org.apiKey, body: { projectId: seeded.projectId, name: 'Second board' } });
    const forOther = await mint({ dashboardId: second.body.data.id });
    const revoked = await mint();
    await t.request('DELETE', `embed/tokens/${revoked.id}`, { apiKey: org.apiKey });
    const expiring = await mint({ expiresInSeconds: 60 });
    clock.advance(61_000);

    for (const [name, token, message] of [
      ['expired', expiring.token, /expired/],
      ['revoked', revoked.token, /revoked/],
      ['other-dashboard', forOther.token, /another dashboard/],
    ] as const) {
      const { page, embedReads } = await hostPage(`error-${name}`, tagSnippet(token));
      const alert = page.locator('vigil-dashboard [role="alert"]');
      await alert.waitFor();
      expect(await alert.textContent(), name).toMatch(message);
      expect(await page.locator('vigil-dashboard figure.widget').count(), name).toBe(0);
      expect((await events(page)).map((event) => event.type), name).toEqual(['error']);
      expect(embedReads.length, name).toBeGreaterThan(0);
      expect(embedReads.every((status) => status === 401 || status === 403), name).toBe(true);
    }

    const valid = await mint();
    const { page } = await hostPage('error-network', tagSnippet(valid.token).replace('<vigil-dashboard ', '<vigil-dashboard base-url="http://127.0.0.1:9" '));
    const alert = page.locator('vigil-dashboard [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/could not be reached \(network error\)/);
    expect((await events(page))[0]).toMatchObject({ type: 'error', detail: { code: 'NETWORK_ERROR', status: null } });
  });

  it('reloads when its attributes change, and no request of any page left loopback', async () => {
    const first = await mint();
    const { page } = await hostPage('switch', tagSnippet(first.token, seeded.dashboard.id));
    await page.locator('vigil-dashboard figure.widget').first().waitFor();
    const scratch = await t.request<One<{ id: string }>>('POST', 'dashboards', {
      apiKey: org.apiKey,
      body: { projectId: seeded.projectId, name: 'Just the count', widgets: [{ title: 'All alerts', kind: 'number', query: { source: 'alerts', measure: { fn: 'count' } } }] },
    });
    const next = await mint({ dashboardId: scratch.body.data.id });
    await page.locator('vigil-dashboard').evaluate((element, attributes) => {
      element.setAttribute('token', attributes.token);
      element.setAttribute('dashboard', attributes.dashboard);
    }, { token: next.token, dashboard: scratch.body.data.id });
    await expect.poll(() => shown(page), { timeout: 30_000 }).toEqual({ 'All alerts': '6' });

    // Live: with refresh="5" a new alert appears without anything else happening on the page.
    await page.locator('vigil-dashboard').evaluate((element) => element.setAttribute('refresh', '5'));
    await createAlert(t, org, { title: 'New one', severity: 'info', projectId: seeded.projectId });
    await expect.poll(() => shown(page), { timeout: 30_000, interval: 500 }).toEqual({ 'All alerts': '7' });
    expect((await events(page)).filter((event) => event.type === 'load').length).toBeGreaterThanOrEqual(3);
    expect(browser.offLoopbackRequests()).toEqual([]);
  });
});
