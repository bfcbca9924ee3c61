import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestOrg } from './support/app.js';
import { launchBrowser, type TestBrowser } from './support/browser.js';
import { needs } from './support/requirements.js';

// The page does not depend on the database, so one database kind is enough here.
describe.runIf(needs('chromium', 'the reference page in a browser'))('the reference page at /docs in a browser', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    org = await t.createOrg();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await t.close();
  });

  it.each(['127.0.0.1', 'localhost'])('is titled Vigil and "Try it out" answers from %s', async (host) => {
    const page = await browser.newPage();
    await page.goto(`${t.baseUrl.replace('127.0.0.1', host)}/docs`);
    expect(await page.title()).toBe('Vigil API reference');
    await page.locator('.info .title').filter({ hasText: 'Vigil REST API' }).waitFor();

    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type=text]').fill(org.apiKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('#operations-usage-retrieveUsage');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().textContent()).toContain(org.orgId);
    expect(browser.offLoopbackRequests()).toEqual([]);
  }, 180_000);
});
