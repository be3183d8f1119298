/**
 * The runtime choice for the built-in model: `auto` takes native when it loads and falls back to
 * wasm (saying why) when it does not; `native` never falls back; `wasm` never loads native. The
 * native runtime is made to fail by naming a module that is not installed, in the worker's own
 * options, so the real package stays in place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUseLite, type LoadedUseLite } from '../../../companion/embeddings/use-lite-loader';
import { nativeIdleMemoryProblem } from '../../../companion/embeddings/use-lite-runtime';
import { WorkerEmbedder } from '../../../companion/embeddings/worker-embedder';
import { buildWorkerForTest } from './worker-build';

const MISSING = 'onnxruntime-node-not-installed';

/** Workers copy the environment when they start, so this holds for those started meanwhile. */
const MMAP_THRESHOLD = 'MALLOC_MMAP_THRESHOLD_';
let thresholdBefore: string | undefined;
beforeAll(() => {
  // As the systemd unit and `npm start` run the companion (nativeIdleMemoryProblem).
  thresholdBefore = process.env[MMAP_THRESHOLD];
  process.env[MMAP_THRESHOLD] = '131072';
});
afterAll(() => {
  if (thresholdBefore === undefined) delete process.env[MMAP_THRESHOLD];
  else process.env[MMAP_THRESHOLD] = thresholdBefore;
});

describe('nativeIdleMemoryProblem', () => {
  it('stands against native only on glibc without MALLOC_MMAP_THRESHOLD_', () => {
    expect(nativeIdleMemoryProblem({}, true)).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    expect(nativeIdleMemoryProblem({ MALLOC_MMAP_THRESHOLD_: '131072' }, true)).toBeUndefined();
    expect(nativeIdleMemoryProblem({}, false)).toBeUndefined();
  });
});

describe('loadUseLite', () => {
  const loaded: LoadedUseLite[] = [];
  afterAll(async () => {
    for (const { embedder } of loaded) await embedder.dispose();
  });
  const load = async (options: Parameters<typeof loadUseLite>[0]) => {
    const result = await loadUseLite(options);
    loaded.push(result);
    return result;
  };

  it('runs native by default when onnxruntime-node loads', async () => {
    const result = await load({});
    expect(result.runtime).toBe('native');
    expect(result.fallbackReason).toBeUndefined();
  });

  it('falls back to wasm under auto when native cannot load, and says why', async () => {
    const result = await load({ runtime: 'auto', runtimeModule: MISSING });
    expect(result.runtime).toBe('wasm');
    expect(result.fallbackReason).toContain(`${MISSING} could not be loaded`);
    const [vector] = await result.embedder.embed(['still embeds']);
    expect(vector).toHaveLength(512);
  });

  it.runIf(process.platform === 'linux')(
    'takes wasm under auto on glibc when the process started without the mmap threshold',
    async () => {
      delete process.env[MMAP_THRESHOLD];
      try {
        const result = await load({});
        expect(result.runtime).toBe('wasm');
        expect(result.fallbackReason).toContain('MALLOC_MMAP_THRESHOLD_=131072');
        // Asked for by name, native still runs.
        expect((await load({ runtime: 'native' })).runtime).toBe('native');
      } finally {
        process.env[MMAP_THRESHOLD] = '131072';
      }
    },
  );

  it('fails instead of falling back when native is forced', async () => {
    await expect(loadUseLite({ runtime: 'native', runtimeModule: MISSING })).rejects.toMatchObject({
      code: 'RUNTIME_UNAVAILABLE',
    });
  });

  it('runs wasm when forced, without trying native', async () => {
    // A missing native module would be reported if native were tried; forced wasm says nothing.
    const result = await load({ runtime: 'wasm', runtimeModule: MISSING });
    expect(result.runtime).toBe('wasm');
    expect(result.fallbackReason).toBeUndefined();
  });
});

describe('WorkerEmbedder reports the runtime its workers run', () => {
  it('native, fallback and forced-native failure through real workers', async () => {
    const workerFile = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
    const native = await WorkerEmbedder.start({ workerFile, workers: 1 });
    try {
      expect(native.runtime).toBe('native');
      expect(native.fallbackReason).toBeUndefined();
    } finally {
      await native.close();
    }

    const fallback = await WorkerEmbedder.start({
      workerFile,
      workers: 1,
      workerData: { runtime: 'auto', runtimeModule: MISSING },
    });
    try {
      expect(fallback.runtime).toBe('wasm');
      expect(fallback.fallbackReason).toContain(MISSING);
      expect(await fallback.embed(['a note'])).toHaveLength(1);
    } finally {
      await fallback.close();
    }

    await expect(
      WorkerEmbedder.start({
        workerFile,
        workers: 1,
        workerData: { runtime: 'native', runtimeModule: MISSING },
      }),
    ).rejects.toThrow(`could not load USE-lite: ${MISSING} could not be loaded`);
  }, 120_000);
});
