import { availableParallelism } from 'node:os';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The tests that load the real embedding model (USE-lite weights on TF.js or ONNX, in process
 * or in worker threads): a project of their own, so `--project companion` answers without them
 * and CI can run them beside the rest. Each file runs isolated: the shared ones swap TF.js's
 * global matmul kernel, which would leak into the next file of a shared module graph.
 */
const REAL_MODEL_TESTS = [
  'test/shared/embeddings/use-lite-agreement.test.ts',
  'test/shared/embeddings/use-lite-batch-matmul.test.ts',
  'test/companion/embeddings/provider.test.ts',
  'test/companion/embeddings/routes.test.ts',
  'test/companion/embeddings/use-lite.test.ts',
  'test/companion/embeddings/use-lite-loader.test.ts',
  'test/companion/embeddings/use-lite-onnx.test.ts',
  'test/companion/embeddings/use-lite-onnx-graph.test.ts',
  'test/companion/embeddings/worker-embedder.test.ts',
  'test/companion/search/answer-service.test.ts',
  'test/companion/search/use-lite-index.test.ts',
];

// One project per source tree so each runs in the environment it ships to:
// shared and companion in Node, the plugin in a DOM with the Obsidian API mocked.
export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than cores: one on a 2-core machine, where most test
    // files wait (child processes, sockets, timers, Chromium) more than they compute.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
          exclude: [...configDefaults.exclude, ...REAL_MODEL_TESTS],
          environment: 'node',
          // Pure code with injected clocks and no module mocks: the files share one module
          // graph per worker instead of importing it again for each of ~60 files.
          isolate: false,
        },
      },
      {
        test: {
          name: 'companion',
          include: ['test/companion/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...REAL_MODEL_TESTS],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'real-model',
          include: REAL_MODEL_TESTS,
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
        },
      },
    ],
  },
});
