import { defineConfig } from 'tsup';

// Two self-contained entry points in ESM and CommonJS: `index` for every runtime (fetch and Web
// Crypto only, nothing from node:), and `node` = index + Web Crypto from node:crypto for Node 18.
export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  splitting: false,
  platform: 'neutral',
  target: 'es2022',
  external: ['node:crypto'],
});
