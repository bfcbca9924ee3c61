import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/** The budget BENCHMARKS.md states for the console's first page: every script it loads, gzipped (level 9). */
export const firstPageScriptGzipBudgetBytes = 80 * 1024;

const dist = new URL('../dist/', import.meta.url);

describe("the built console's first page", () => {
  it(`loads at most ${firstPageScriptGzipBudgetBytes / 1024} KiB of JavaScript, gzipped`, async () => {
    const index = await readFile(new URL('index.html', dist), 'utf8');
    const scripts = [...index.matchAll(/<script[^>]+src="\/([^"]+)"/g), ...index.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const script of scripts) gzipped += gzipSync(await readFile(new URL(script, dist)), { level: 9 }).length;
    expect(gzipped, `the first page loads ${(gzipped / 1024).toFixed(1)} KiB of gzipped JavaScript`).toBeLessThanOrEqual(firstPageScriptGzipBudgetBytes);
  });
});
