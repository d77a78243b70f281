import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// `wails dev` (Vite's dev server) puts each component's CSS in a <style> the
// client script writes, and reloads over its own websocket: the page's
// Content-Security-Policy (index.html) would refuse both. So in dev only,
// styles may be inline and the page may connect to the dev servers on this
// machine; a build keeps the strict policy, which is what ships.
function devPolicy(): Plugin {
  return {
    name: 'quire-dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html
        .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* http://localhost:*"),
  };
}

export default defineConfig({
  plugins: [svelte(), devPolicy()],
  // Component tests mount Svelte components in jsdom: Vitest must resolve
  // Svelte's browser build, not its server one. (Builds keep Vite's defaults.)
  ...(process.env.VITEST ? { resolve: { conditions: ['browser'] } } : {}),
  // Relative asset URLs: the same dist works from Wails' asset server and `quire serve`.
  base: './',
  build: {
    outDir: 'dist',
    // public/.gitkeep is copied back, so the committed dist/.gitkeep survives a build.
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 800,
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
