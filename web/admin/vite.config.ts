import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The server serves the build at /admin/ with a strict Content-Security-Policy: the build must
// not need inline scripts or styles, and loads nothing from outside the server.
export default defineConfig({
  root: here('.'),
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: here('../../dist/web/admin'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Small assets stay files: a data: URL would do under img-src, but not for fonts or scripts.
    assetsInlineLimit: 0,
    sourcemap: true,
    // One bundle of React, React Aria and the pages, served from the same server and cached by hash.
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // Development with `npx vite web/admin`: the API and the session cookie come from a running server.
    proxy: { '/admin/api': process.env.PARLEY_URL ?? 'http://127.0.0.1:8080' },
  },
});
