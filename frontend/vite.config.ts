import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [svelte()],
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
