import { defineConfig } from 'vite';

// Preact's JSX through esbuild's automatic runtime: no plugin needed. Asset names carry a content
// hash (Vite's default), which is what lets the server cache them for a year.
export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
});
