import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

// One project per source tree so each runs in the environment it ships to:
// shared and companion in Node, the plugin in a DOM with the Obsidian API mocked.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'repo',
          include: ['test/*.test.ts', 'test/scripts/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'shared',
          include: ['test/shared/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'companion',
          include: ['test/companion/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [svelte({ compilerOptions: { dev: false } })],
        resolve: {
          alias: { obsidian: 'obsidian-test-mocks/obsidian' },
          conditions: ['browser'],
        },
        test: {
          name: 'plugin',
          include: ['test/plugin/**/*.test.ts'],
          environment: 'happy-dom',
          // The bundle tests share one main.js build per run (test/helpers/plugin-bundle.ts).
          globalSetup: ['test/helpers/once-per-run-setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          // The CLI tests share one companion build per run (test/helpers/companion-build.ts).
          globalSetup: ['test/helpers/once-per-run-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
