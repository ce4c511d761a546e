import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/**
 * The web UI, built into dist/web (served by `talaria serve` at `/`).
 * `npm run dev:web` proxies /api and /ws to a running `talaria serve` (TALARIA_URL, default :4700).
 */
const target = process.env.TALARIA_URL ?? 'http://127.0.0.1:4700';

export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // A build is always the production React, even when run from a test (vitest sets NODE_ENV=test).
  ...(command === 'build' ? { mode: 'production', define: { 'process.env.NODE_ENV': JSON.stringify('production') } } : {}),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The package ships no source maps (test/package/pack.test.ts); `vite dev` serves its own.
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/ws': { target: target.replace(/^http/, 'ws'), ws: true },
    },
  },
}));
