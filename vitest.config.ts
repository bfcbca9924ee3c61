import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { skipLogVariable } from './packages/server/test/support/requirement-list.js';

const require = createRequire(import.meta.url);
// Where test groups write what they skipped (support/requirements.ts); the reporter prints it at the end.
process.env[skipLogVariable] ??= path.join(os.tmpdir(), `vigil-test-skips-${process.pid}.jsonl`);

export default defineConfig({
  // graphql ships CommonJS and ESM copies; Vite would pick the ESM one for our sources while Node loads
  // the CommonJS one for graphql-jit, graphql-http and graphql-ws, and two copies of graphql refuse each other's schemas. Node picks CommonJS.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    globalSetup: ['./packages/server/test/support/compiled-build.ts', './packages/server/test/support/pglite-images.ts'],
    include: ['packages/*/test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './packages/server/test/support/test-report.ts'],
  },
});
