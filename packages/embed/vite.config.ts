import { defineConfig } from 'vite';

/** One classic script (IIFE), so `<script src=".../embed/sdk.js">` works on any page, with Chart.js bundled in. */
export default defineConfig({
  build: {
    lib: { entry: 'src/index.ts', formats: ['iife'], name: 'VigilEmbed', fileName: () => 'sdk.js' },
    target: 'es2020',
    minify: 'esbuild',
    emptyOutDir: true,
    reportCompressedSize: false,
  },
});
