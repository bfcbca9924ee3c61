import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

// The page does not depend on the database, so one database kind is enough here. The browser
// checks (axe at 375 and 1280 px, light and dark) are in console.on-call.browser.test.ts.
describe('the reference page at /docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t.close());

  it("is Vigil's: every operation of the OpenAPI document, with its path, fields and an example, and no script", async () => {
    const response = await fetch(`${t.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('<title>Vigil API reference</title>');
    expect(html).not.toMatch(/<script/i);
    const document = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(operationIds.length).toBeGreaterThan(40);
    for (const id of operationIds) expect(html, id).toContain(`id="${id}"`);
    expect(html).toContain('<code>/api/v1/alerts/{id}/timeline</code>');
    expect(html).toMatch(/<code>title<\/code> <span class="required">required<\/span>/);
    const css = await fetch(`${t.baseUrl}/docs/reference.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain('prefers-color-scheme:dark');
  });
});
