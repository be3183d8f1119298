import { availableParallelism } from 'node:os';
import { relative, sep } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first (a bare-clone `vitest run` on the 2-core CI machine; most
 * of their time is spent waiting: a companion child process, a sync-sim run to its deadline).
 * Vitest queues projects one after another in name order, and without a results cache (CI,
 * a fresh clone) orders a project's files by size: open-seeds.test.ts, the longest, started
 * last and ran alone for its last minute and a half while the other worker was idle. Started
 * first, they overlap the rest (and the lint beside vitest in `npm test`).
 */
const STARTED_FIRST = [
  'test/scripts/sync-sim/open-seeds.test.ts',
  'test/e2e/clients-cli.test.ts',
  'test/e2e/companion-cli.test.ts',
  'test/e2e/vault-cli.test.ts',
  'test/e2e/task-durability.test.ts',
  'test/e2e/digest-durability.test.ts',
  'test/plugin/sync/sync-sim-replays.test.ts',
];

/** Vitest's order, with the STARTED_FIRST files moved to the front in that list's order. */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const file = relative(spec.project.config.root, spec.moduleId).split(sep).join('/');
      const index = STARTED_FIRST.indexOf(file);
      return index === -1 ? STARTED_FIRST.length : index;
    };
    return sorted
      .map((spec, position) => ({ spec, position, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map(({ spec }) => spec);
  }
}

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

/**
 * The files that replace a module with `vi.mock` (node:fs, node:fs/promises, obsidian): a mock
 * is per module graph, so they run isolated while the rest of their tree shares one graph per
 * worker (importing Fastify, SQLite and the Svelte views once instead of once a file roughly
 * halves the CPU the companion and plugin projects use).
 */
const MODULE_MOCK_TESTS = [
  'test/companion/search/restart.test.ts',
  'test/companion/vault/folder-watcher.test.ts',
  'test/companion/vault/atomic-write-storage.test.ts',
  'test/plugin/main.test.ts',
  'test/plugin/connection/obsidian/request-url-transport.test.ts',
];

/** The plugin's tests: a DOM with the Obsidian API mocked, Svelte compiled as it ships. */
function pluginProject(name: string, isolated: boolean): TestProjectInlineConfiguration {
  const mocking = MODULE_MOCK_TESTS.filter((file) => file.startsWith('test/plugin/'));
  return {
    plugins: [svelte({ compilerOptions: { dev: false } })],
    resolve: {
      alias: { obsidian: 'obsidian-test-mocks/obsidian' },
      conditions: ['browser'],
    },
    test: {
      name,
      include: isolated ? mocking : ['test/plugin/**/*.test.ts'],
      exclude: isolated ? configDefaults.exclude : [...configDefaults.exclude, ...mocking],
      environment: 'happy-dom',
      isolate: isolated,
      // The bundle tests share one main.js build per run (test/helpers/plugin-bundle.ts).
      globalSetup: ['test/helpers/once-per-run-setup.ts'],
      testTimeout: 30_000,
    },
  };
}

// One project per source tree so each runs in the environment it ships to:
// shared and companion in Node, the plugin in a DOM with the Obsidian API mocked.
export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than cores: one on a 2-core machine, where most test
    // files wait (child processes, sockets, timers, Chromium) more than they compute.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirstSequencer },
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
          exclude: [...configDefaults.exclude, ...REAL_MODEL_TESTS, ...MODULE_MOCK_TESTS],
          environment: 'node',
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'companion-isolated',
          include: MODULE_MOCK_TESTS.filter((file) => file.startsWith('test/companion/')),
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
      pluginProject('plugin', false),
      pluginProject('plugin-isolated', true),
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
