import { createRequire } from 'node:module';
import { type APIResponse, type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium: the suite never downloads a browser. */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium on a machine with a closed network: without the background-networking
 * ones Chromium keeps dialling Google's hosts, and those refused connections slow every page.
 */
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (its own cookies and storage) whose every request is recorded. */
  newPage(options?: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number }; bypassCSP?: boolean }): Promise<Page>;
  /** Every request address any page asked for that was not on loopback (should stay empty). */
  offLoopbackRequests(): string[];
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isOffLoopback(address: string): boolean {
  if (!/^(https?|wss?):/.test(address)) return false;
  return !loopbackHosts.has(new URL(address).hostname);
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  const offLoopback: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async newPage(options = {}) {
      // bypassCSP: a page whose Content-Security-Policy forbids inline scripts still lets axe-core in.
      const context = await browser.newContext({
        colorScheme: options.colorScheme,
        viewport: options.viewport ?? { width: 1280, height: 800 },
        bypassCSP: options.bypassCSP,
      });
      contexts.push(context);
      context.on('request', (request) => {
        if (isOffLoopback(request.url())) offLoopback.push(request.url());
      });
      return context.newPage();
    },
    offLoopbackRequests: () => [...offLoopback],
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const axeSource = (): string => {
  const require = createRequire(import.meta.url);
  return (require('axe-core') as { source: string }).source;
};

/** axe's rules that judge colours: all that can differ between a page's light and dark schemes. */
export const colourRules = ['color-contrast', 'link-in-text-block'];

/** Contexts whose new documents get axe-core before their own scripts. */
const contextsWithAxe = new WeakSet<BrowserContext>();

/**
 * Runs axe-core in the page and returns the serious and critical violations (the ones a test fails
 * on): every rule, or only `rules`. The first check in a context also installs axe as an init
 * script of the context, so the pages it opens next have it already: sending and inserting axe's
 * half a megabyte of source cost more than running it (~0.5 s against ~0.2 s a page).
 */
export async function seriousAccessibilityViolations(page: Page, rules?: string[]): Promise<AxeViolation[]> {
  if (!contextsWithAxe.has(page.context())) {
    contextsWithAxe.add(page.context());
    await page.context().addInitScript({ content: axeSource() });
  }
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource() });
  const violations = await page.evaluate(async (only) => {
    type Violations = { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<Violations> } }).axe;
    // Only the violations are read, so axe need not gather the nodes that passed.
    const resultTypes = ['violations'];
    const result = await axe.run(document, only ? { resultTypes, runOnly: { type: 'rule', values: only } } : { resultTypes });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  }, rules);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export interface HeldReads<T> {
  /** What `inspect` kept of each held answer, in the order the requests were made. */
  seen(): T[];
  /** Answers every held request, the one made last first; the requests after it go through. */
  answerNewestFirst(): Promise<void>;
}

/**
 * Holds the page's requests to `url`: each is read from the server when it is made, and answered
 * only by `answerNewestFirst()`, so a test can have answers arrive out of order.
 */
export async function holdReads<T>(page: Page, url: string | RegExp, inspect: (response: APIResponse) => Promise<T>): Promise<HeldReads<T>> {
  const held: { seen: T; answer: () => Promise<void> }[] = [];
  let holding = true;
  await page.route(url, async (route) => {
    if (!holding) return route.continue();
    const response = await route.fetch();
    held.push({ seen: await inspect(response), answer: () => route.fulfill({ response }) });
  });
  return {
    seen: () => held.map((read) => read.seen),
    async answerNewestFirst() {
      holding = false;
      for (const read of held.reverse()) await read.answer();
    },
  };
}
