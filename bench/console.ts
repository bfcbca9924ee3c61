import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot, runCommand, startServer, vigilServe } from './support/processes.js';

const runs = 15;
const secretKey = 'bench-secret-key-0123456789abcdef0123456789';
const password = 'bench password 1';
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(0.9 * values.length) - 1)];
const ms = (value: number) => `${value.toFixed(0)} ms`;

/** The baseline: the same browser painting a one-heading HTML page from a bare Node.js server on loopback. */
async function helloPage(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Hello</title><h1>Hello</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

interface Timing {
  firstPaint: number;
  firstContentfulPaint: number;
  /** Until the first alert of the list is on screen (the page's purpose, after its API reads). */
  alertsShown: number;
}

/** Opens `url` in a fresh context (cold cache) `runs` times; the paint entries come from the page itself. */
async function measure(browser: Browser, url: string, cookie: { name: string; value: string } | undefined, readySelector: string): Promise<Timing[]> {
  const timings: Timing[] = [];
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    if (cookie) await context.addCookies([{ ...cookie, url }]);
    const page = await context.newPage();
    await page.goto(url);
    await page.locator(readySelector).first().waitFor();
    const shownAt = await page.evaluate(() => performance.now());
    const paints = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('paint').map((entry) => [entry.name, entry.startTime])));
    timings.push({ firstPaint: paints['first-paint'], firstContentfulPaint: paints['first-contentful-paint'], alertsShown: shownAt });
    await context.close();
  }
  return timings;
}

async function firstPageScripts(): Promise<{ bytes: number; gzip: number }> {
  const dist = path.join(repoRoot, 'packages/console/dist');
  const index = await readFile(path.join(dist, 'index.html'), 'utf8');
  let bytes = 0;
  let gzip = 0;
  for (const [, script] of index.matchAll(/<script[^>]+src="\/([^"]+)"/g)) {
    const content = await readFile(path.join(dist, script));
    bytes += content.length;
    gzip += gzipSync(content, { level: 9 }).length;
  }
  return { bytes, gzip };
}

/**
 * The console's first page on loopback: a phone-sized Chromium opens /alerts signed in (50 alerts),
 * cold cache each time, against the same browser painting a bare page (the baseline).
 */
export async function runConsoleBench(): Promise<string> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-console-'));
  const env = { VIGIL_SECRET_KEY: secretKey, VIGIL_DATA_DIR: path.join(workDir, 'data'), VIGIL_ROLE: 'all', LOG_LEVEL: 'warn' };
  const server = await startServer({ name: 'Vigil', ...vigilServe, env, readyPath: '/readyz', logFile: path.join(workDir, 'vigil.log') });
  const hello = await helloPage();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs });
  try {
    const created = JSON.parse(
      await runCommand(['packages/server/bin/vigil.js', 'org', 'create', '--name', 'Bench', '--plan', 'business', '--admin-email', 'bench@example.com', '--json'], env),
    ) as { apiKey: string; inviteUrl: string };
    const token = new URL(created.inviteUrl).hash.replace(/^#token=/, '');
    const accepted = await fetch(`${server.url}/api/v1/session/link/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password }) });
    const [name, value] = (accepted.headers.get('set-cookie') ?? '').split(';')[0].split('=');
    const auth = { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' };
    const project = (await (await fetch(`${server.url}/api/v1/projects`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench' }) })).json()) as { data: { id: string } };
    for (let index = 0; index < 50; index++) {
      await fetch(`${server.url}/api/v1/alerts`, { method: 'POST', headers: auth, body: JSON.stringify({ projectId: project.data.id, title: `Sensor ${index} above threshold`, severity: 'high' }) });
    }
    const baseline = await measure(browser, hello.url, undefined, 'h1');
    const consoleTimings = await measure(browser, `${server.url}/alerts`, { name, value }, 'table.cards tbody tr');
    const scripts = await firstPageScripts();
    const row = (label: string, values: number[], base: number[] | undefined) =>
      `| ${label} | ${ms(median(values))} | ${ms(p90(values))} | ${base ? (median(values) / median(base)).toFixed(1) : '–'} |`;
    return [
      '### console',
      '',
      `First page of the console (\`/alerts\`, signed in, 50 alerts) in headless Chromium at 375 px, a fresh context (cold cache) each of ${runs} runs, server and browser on loopback. Baseline: the same browser painting a one-heading page from a bare Node.js server.`,
      '',
      '| measure | median | p90 | ratio to baseline (median) |',
      '|---|---|---|---|',
      row('baseline: first contentful paint of a bare page', baseline.map((one) => one.firstContentfulPaint), undefined),
      row('console: first paint', consoleTimings.map((one) => one.firstPaint), baseline.map((one) => one.firstPaint)),
      row('console: first contentful paint', consoleTimings.map((one) => one.firstContentfulPaint), baseline.map((one) => one.firstContentfulPaint)),
      row('console: the first alert on screen', consoleTimings.map((one) => one.alertsShown), baseline.map((one) => one.firstContentfulPaint)),
      '',
      `First-page JavaScript: ${scripts.bytes} bytes, ${scripts.gzip} gzipped (level 9; ${(scripts.gzip / 1024).toFixed(1)} KiB of the 80 KiB budget).`,
    ].join('\n');
  } finally {
    await browser.close();
    hello.server.close();
    await server.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}
