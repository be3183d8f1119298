import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingProviderError } from '../../../companion/embeddings/provider-error';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import { WorkerEmbedder, type IdleTimer } from '../../../companion/embeddings/worker-embedder';
import { writeScriptedWorker } from './scripted-worker';
import { buildWorkerForTest } from './worker-build';

const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, x, i) => sum + x * (b[i] ?? NaN), 0);

describe('WorkerEmbedder with the real USE-lite worker', () => {
  let worker: WorkerEmbedder;
  let mainThread: UseLiteEmbedder;

  beforeAll(async () => {
    const workerFile = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
    [worker, mainThread] = await Promise.all([
      WorkerEmbedder.start({ workerFile, maxBatchTexts: 4 }),
      UseLiteEmbedder.load(),
    ]);
  });
  afterAll(async () => {
    await worker.close();
    mainThread.dispose();
  });

  it('returns the same unit vectors as the model on the main thread', async () => {
    const texts = ['Templates insert text.', '', 'Graph view shows links between notes.'];
    const [fromWorker, local] = await Promise.all([worker.embed(texts), mainThread.embed(texts)]);
    expect(worker.model).toEqual(mainThread.model);
    expect(fromWorker).toHaveLength(3);
    fromWorker.forEach((vector, i) => {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(512);
      expect(dot(vector, local[i]!)).toBeCloseTo(1, 5);
      // Each vector owns its buffer: storing `vector.buffer` stores exactly this vector.
      expect(vector.buffer.byteLength).toBe(512 * 4);
    });
  });

  it('answers concurrent requests, each with its own vectors in order', async () => {
    const requests = [['one', 'two', 'three', 'four', 'five', 'six'], ['seven'], ['eight', 'nine']];
    const answers = await Promise.all(requests.map((texts) => worker.embed(texts)));
    const expected = await mainThread.embed(requests.flat());
    expect(answers.flat().map((v, i) => dot(v, expected[i]!))).toEqual(
      requests.flat().map(() => expect.closeTo(1, 5)),
    );
  });

  it('rejects a non-string input without disturbing other requests', async () => {
    const bad = worker.embed(['fine', 7 as unknown as string]);
    const good = worker.embed(['still fine']);
    await expect(bad).rejects.toThrow('input[1] must be a string, got number');
    expect(await good).toHaveLength(1);
  });

  it('answers an empty list without a round trip', async () => {
    expect(await worker.embed([])).toEqual([]);
  });
});

describe('WorkerEmbedder with the real USE-lite worker in child processes', () => {
  /** Live child processes of this test process running `file` (Linux: /proc). */
  function workerProcesses(file: string): number[] {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return (
            parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(file)
          );
        } catch {
          return false; // gone meanwhile
        }
      });
  }

  it('runs native without MALLOC_MMAP_THRESHOLD_ in the companion, the same vectors, and parks by exiting', async () => {
    const saved = process.env.MALLOC_MMAP_THRESHOLD_;
    delete process.env.MALLOC_MMAP_THRESHOLD_;
    const workerUrl = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
    const workerPath = fileURLToPath(workerUrl);
    let park: (() => void) | undefined;
    const embedder = await WorkerEmbedder.start({
      workerFile: workerUrl,
      host: 'process',
      workers: 1,
      workerData: { runtime: 'auto' },
      idleTimer: { set: (callback) => (park = callback), clear: () => (park = undefined) },
    });
    const mainThread = await UseLiteEmbedder.load();
    try {
      // A thread worker would fall back to wasm here (nativeIdleMemoryProblem); a process worker
      // has the allocator setting in its own environment.
      expect(embedder.runtime).toBe('native');
      expect(embedder.fallbackReason).toBeUndefined();
      const texts = ['Templates insert text.', 'Graph view shows links between notes.'];
      const [fromProcess, local] = await Promise.all([
        embedder.embed(texts),
        mainThread.embed(texts),
      ]);
      fromProcess.forEach((vector, i) => {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(dot(vector, local[i]!)).toBeCloseTo(1, 4);
      });
      const [pid] = workerProcesses(workerPath);
      expect(pid).toBeGreaterThan(0);

      // Killed from outside: replaced, and the request still answered.
      process.kill(pid!, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await embedder.embed(['after the kill'])).toHaveLength(1);
      expect(embedder.restarts).toBe(1);
      expect(workerProcesses(workerPath)).not.toContain(pid);

      // Parked: the process is gone, its memory with it; the next request starts one again.
      park?.();
      for (let i = 0; i < 50 && workerProcesses(workerPath).length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(workerProcesses(workerPath)).toEqual([]);
      expect(await embedder.embed(['woken'])).toHaveLength(1);
      expect(workerProcesses(workerPath)).toHaveLength(1);
    } finally {
      await embedder.close();
      mainThread.dispose();
      if (saved !== undefined) process.env.MALLOC_MMAP_THRESHOLD_ = saved;
    }
    expect(workerProcesses(workerPath)).toEqual([]);
  });
});

describe('WorkerEmbedder queueing, errors and crashes (scripted worker)', () => {
  const dims = 4;
  const model = { id: 'scripted', dims };
  const opened: WorkerEmbedder[] = [];

  async function start(
    options: {
      maxBatchTexts?: number;
      fatal?: string;
      modelId?: string;
      workers?: number;
      idleTimer?: IdleTimer;
      fatalOnRestart?: string;
      queryWorker?: boolean;
    } = {},
  ) {
    const { workerFile, markerFile } = writeScriptedWorker();
    const embedder = await WorkerEmbedder.start({
      workerFile,
      model,
      workers: options.workers ?? 1,
      maxBatchTexts: options.maxBatchTexts ?? 3,
      workerData: {
        dims,
        markerFile,
        fatal: options.fatal,
        modelId: options.modelId,
        fatalOnRestart: options.fatalOnRestart,
      },
      ...(options.idleTimer ? { idleTimer: options.idleTimer, idleTimeoutMs: 60_000 } : {}),
      ...(options.queryWorker ? { queryWorker: true } : {}),
    });
    opened.push(embedder);
    return embedder;
  }
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((embedder) => embedder.close()));
  });

  /** The scripted worker writes [text length, batch number, …]. */
  const lengths = (vectors: Float32Array[]) => vectors.map((v) => v[0]);
  const batches = (vectors: Float32Array[]) => vectors.map((v) => v[1]);

  it('lets a small request ride in the next batch instead of waiting behind a big one', async () => {
    const embedder = await start({ maxBatchTexts: 3 });
    const big = embedder.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g']);
    const small = embedder.embed(['query']);
    const [bigVectors, smallVectors] = await Promise.all([big, small]);
    expect(lengths(bigVectors)).toEqual([1, 2, 3, 4, 5, 6, 1]);
    // Batch 1: a, bb, ccc. Batch 2: the query alone (it would wait for bulk texts' arithmetic
    // in a shared batch). Batch 3: dddd, eeeee, ffffff. Batch 4: g.
    expect(batches(smallVectors)).toEqual([2]);
    expect(batches(bigVectors)).toEqual([1, 1, 1, 3, 3, 3, 4]);
  });

  it('puts small requests together, never with bulk texts', async () => {
    const embedder = await start({ maxBatchTexts: 3 });
    const bulk = embedder.embed(['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee']);
    const queries = [embedder.embed(['q1']), embedder.embed(['q2', 'q2b'])];
    const [bulkVectors, first, second] = await Promise.all([bulk, ...queries]);
    // Batch 1: three bulk texts. Batch 2: both queries (three texts, small ones together).
    // Batch 3: the rest of the bulk request.
    expect(batches(bulkVectors!)).toEqual([1, 1, 1, 3, 3]);
    expect([...batches(first!), ...batches(second!)]).toEqual([2, 2, 2]);
  });

  it('starts a query worker when a query arrives while the pool is busy with bulk texts', async () => {
    const embedder = await start({ maxBatchTexts: 5, queryWorker: true });
    expect(embedder.runningWorkers).toBe(1); // the query worker starts only when needed
    const bulk = embedder.embed(['slow:3000', 'b', 'c', 'd', 'e']);
    const query = await embedder.embed(['query']);
    // Answered by another thread while the bulk message still blocks the pool's worker.
    expect(embedder.runningWorkers).toBe(2);
    const bulkVectors = await bulk;
    expect(query[0]?.[2]).not.toBe(bulkVectors[0]?.[2]);
    expect(lengths(bulkVectors)).toEqual([9, 1, 1, 1, 1]);
    expect(embedder.idleCycles.woken).toBe(1);
  });

  it('leaves bulk texts to the pool when it has a query worker', async () => {
    const embedder = await start({ maxBatchTexts: 1, queryWorker: true });
    const vectors = await embedder.embed(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(new Set(vectors.map((v) => v[2])).size).toBe(1);
    expect(embedder.runningWorkers).toBe(1);
  });

  it('spreads batches over the workers of a pool', async () => {
    const embedder = await start({ workers: 2, maxBatchTexts: 1 });
    const vectors = await embedder.embed(['a', 'b', 'c', 'd']);
    expect(lengths(vectors)).toEqual([1, 1, 1, 1]);
    expect(new Set(vectors.map((v) => v[2])).size).toBe(2);
  });

  it('passes a worker error to the requests of that batch only', async () => {
    const embedder = await start({ maxBatchTexts: 2 });
    const failing = embedder.embed(['fail', 'x']);
    const later = embedder.embed(['ok']);
    await expect(failing).rejects.toThrow('embedding failed: scripted failure');
    expect(lengths(await later)).toEqual([2]);
  });

  it('restarts a crashed worker once and retries the lost batch', async () => {
    const embedder = await start();
    const vectors = await embedder.embed(['crash-once', 'abc']);
    expect(lengths(vectors)).toEqual([10, 3]);
    expect(embedder.restarts).toBe(1);
    expect(lengths(await embedder.embed(['after']))).toEqual([5]);
  });

  it('gives up after two crashes in a row, and says so to every caller', async () => {
    const embedder = await start({ maxBatchTexts: 1 });
    const crashing = embedder.embed(['crash']);
    const waiting = embedder.embed(['innocent']);
    await expect(crashing).rejects.toThrow(/crashed again after a restart \(exited with code 3\)/);
    await expect(waiting).rejects.toBeInstanceOf(EmbeddingProviderError);
    await expect(embedder.embed(['later'])).rejects.toThrow(/crashed again/);
  });

  /** An idle timer that fires only when the test says the quiet minute is over. */
  function manualTimer() {
    const armed = new Map<number, { callback: () => void; ms: number }>();
    let next = 1;
    return {
      timer: {
        set: (callback: () => void, ms: number) => {
          armed.set(next, { callback, ms });
          return next++;
        },
        clear: (handle: unknown) => armed.delete(handle as number),
      } satisfies IdleTimer,
      armedDelays: () => [...armed.values()].map((entry) => entry.ms),
      elapse: () => {
        const due = [...armed.values()];
        armed.clear();
        for (const entry of due) entry.callback();
      },
    };
  }

  it('stops its workers after a quiet period and starts them again on demand', async () => {
    const clock = manualTimer();
    const embedder = await start({ workers: 2, maxBatchTexts: 1, idleTimer: clock.timer });
    const before = await embedder.embed(['a', 'b']);
    expect(embedder.ready).toBe(true);
    expect(embedder.runningWorkers).toBe(2);
    expect(clock.armedDelays()).toEqual([60_000]);

    clock.elapse();
    expect(embedder.ready).toBe(false);
    expect(embedder.runningWorkers).toBe(0);
    expect(embedder.idleCycles).toEqual({ parked: 1, woken: 0 });
    expect(clock.armedDelays()).toEqual([]); // nothing left to stop: no timer

    // One text needs one worker: a query after a quiet period loads one model, not two.
    const query = await embedder.embed(['query']);
    expect(lengths(query)).toEqual([5]);
    expect(embedder.runningWorkers).toBe(1);
    expect(embedder.idleCycles).toEqual({ parked: 1, woken: 1 });
    // A new thread answered: the old workers are gone.
    expect(before.map((v) => v[2])).not.toContain(query[0]?.[2]);
    expect(embedder.restarts).toBe(0);

    // Enough work for the whole pool brings the second worker back too (started at once; the
    // first may finish the four texts before the second has loaded).
    const batch = embedder.embed(['a', 'b', 'c', 'd']);
    expect(embedder.idleCycles).toEqual({ parked: 1, woken: 2 });
    expect(lengths(await batch)).toEqual([1, 1, 1, 1]);
  });

  it('does not stop workers while work arrives before the quiet period ends', async () => {
    const clock = manualTimer();
    const embedder = await start({ idleTimer: clock.timer });
    await embedder.embed(['a']);
    expect(clock.armedDelays()).toEqual([60_000]);
    const pending = embedder.embed(['busy']);
    // New work cancels the countdown; the timer is armed again only once the pool is quiet.
    expect(clock.armedDelays()).toEqual([]);
    expect(lengths(await pending)).toEqual([4]);
    expect(clock.armedDelays()).toEqual([60_000]);
    expect(embedder.idleCycles.parked).toBe(0);
    expect(embedder.ready).toBe(true);
  });

  it('fails the waiting requests when a worker cannot start again, and tries again later', async () => {
    const clock = manualTimer();
    const embedder = await start({ idleTimer: clock.timer, fatalOnRestart: 'disk gone' });
    await embedder.embed(['a']);
    clock.elapse();
    expect(embedder.ready).toBe(false);
    const failure = embedder.embed(['after idle']);
    await expect(failure).rejects.toThrow('the embedding worker could not start again: disk gone');
    await expect(failure).rejects.toBeInstanceOf(EmbeddingProviderError);
    // Not failed for good (unlike two crashes in a row): the next call starts a worker again.
    await expect(embedder.embed(['later'])).rejects.toThrow('could not start again: disk gone');
    expect(embedder.idleCycles).toEqual({ parked: 1, woken: 2 });
  });

  it('releases its idle timer on close', async () => {
    const clock = manualTimer();
    const embedder = await start({ idleTimer: clock.timer });
    expect(clock.armedDelays()).toEqual([60_000]);
    await embedder.close();
    expect(clock.armedDelays()).toEqual([]);
  });

  it('rejects pending work and later calls once closed', async () => {
    const embedder = await start({ maxBatchTexts: 1 });
    const settled = Promise.allSettled([
      embedder.embed(['a']),
      embedder.embed(['b']),
      embedder.embed(['c']),
    ]);
    await embedder.close();
    const results = await settled;
    // The first may have been answered before close; the queued ones cannot have been.
    expect(results.slice(1).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(embedder.embed(['d'])).rejects.toThrow('the embedding worker is closed');
    await embedder.close();
  });

  it.each([
    {
      name: 'a worker that cannot load its model',
      options: { fatal: 'weights missing' },
      error: 'weights missing',
    },
    {
      name: 'a worker serving another model',
      options: { modelId: 'other' },
      error: /serves other \(4 dims\), expected scripted/,
    },
  ])('fails to start with $name', async ({ options, error }) => {
    await expect(start(options)).rejects.toThrow(error);
  });

  it('names the missing worker file and how to build it', async () => {
    await expect(
      WorkerEmbedder.start({ workerFile: '/nonexistent/use-lite.worker.mjs' }),
    ).rejects.toThrow(/not found at \/nonexistent\/use-lite\.worker\.mjs: build the companion/);
  });

  it.each([
    { options: { maxBatchTexts: 0 }, error: /maxBatchTexts must be a positive integer, got 0/ },
    { options: { workers: 0 }, error: /workers must be a positive integer, got 0/ },
    { options: { workers: 1.5 }, error: /workers must be a positive integer, got 1.5/ },
    { options: { idleTimeoutMs: 0 }, error: /idleTimeoutMs must be positive, got 0/ },
  ])('refuses $options', async ({ options, error }) => {
    const { workerFile } = writeScriptedWorker();
    await expect(WorkerEmbedder.start({ workerFile, ...options })).rejects.toThrow(error);
  });
});
