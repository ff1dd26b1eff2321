import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web application: built into web/dist (served by herald at /app), or served by
// `npm run dev:web` with hot reload, proxying the API to a running herald
// (HERALD_DEV_TARGET, default http://localhost:8080).
const target = process.env.HERALD_DEV_TARGET ?? 'http://localhost:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  plugins: [react()],
  resolve: {
    // Server modules (the shared shapes, pure domain helpers) by a name that does not depend on depth.
    alias: { '@herald': fileURLToPath(new URL('../src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Served under a CSP without inline scripts or styles: no inline polyfill, CSS as files.
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    assetsInlineLimit: 0,
    // The entry (React, router, query, the shell) is ~410 KB minified, ~130 KB gzipped; charts load by route.
    chunkSizeWarningLimit: 450,
    reportCompressedSize: true,
  },
  server: {
    port: 5173,
    proxy: {
      '/v1': { target, changeOrigin: false },
      '/admin': { target, changeOrigin: false },
    },
  },
});
