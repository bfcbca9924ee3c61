import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/** The budget BENCHMARKS.md states for /embed/sdk.js, gzipped as the server sends it (level 9). */
export const sdkGzipBudgetBytes = 80 * 1024;

describe('the built sdk.js', () => {
  it(`stays within its gzip budget of ${sdkGzipBudgetBytes / 1024} KiB`, async () => {
    const built = await readFile(new URL('../dist/sdk.js', import.meta.url));
    const gzipped = gzipSync(built, { level: 9 }).length;
    expect(gzipped, `sdk.js is ${(gzipped / 1024).toFixed(1)} KiB gzipped`).toBeLessThanOrEqual(sdkGzipBudgetBytes);
    expect(built.toString('utf8')).toContain('vigil-dashboard');
  });
});
