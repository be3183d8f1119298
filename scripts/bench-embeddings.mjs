#!/usr/bin/env node
// Benchmark of the built-in embedding model (USE-lite) on obsidian-help-en chunks of ~1,000
// characters, on two paths side by side: `tfjs` (TensorFlow.js's own kernels, the path before
// issue #17) and `fast` (the attention's batched matmuls routed to XNNPACK,
// shared/embeddings/use-lite-batch-matmul.ts; the default):
//   (a)  main thread, one chunk per call, tfjs (the naive loop every other row is compared with);
//   (b)  main thread, calls of 32 chunks in corpus order (each call sorted by token count inside);
//   (b2) main thread, length-bucketed: one call with every chunk, so the embedder sorts them all
//        by token count and each graph call of 32 holds chunks of similar length; tfjs, then fast;
//   (c)  the worker embedder with one worker, then a pool of two, every request in flight at once,
//        tfjs, then fast; the peak RSS of the process while each pool runs;
//   (d)  the worker embedder as the server starts it (default pool, fast) and as the indexer's
//        embedding queue calls it: one call of DEFAULT_EMBED_BATCH texts at a time, shortest
//        first.
// and the native path (`native`: onnxruntime-node running the graph converted to ONNX,
// companion/embeddings/use-lite-onnx.ts):
//   (b2) main thread, length-bucketed, native, at each of `--native-batches` graph-call sizes;
//   (c)  the worker embedder with one worker and with two, native;
//   (d)  the indexer's calls, on native (the server's default when onnxruntime-node loads) and
//        on wasm fast.
// `--agreement` then embeds every chunk of the corpus on each path and prints the cosine
// between each text's vectors (min, mean) for fast vs tfjs, native vs fast and native vs tfjs:
// a stored index stays valid only if they agree.
// `--worker-rss` starts one worker per runtime, each in a fresh process, and prints the
// process's RSS before the worker starts and after it has embedded 64 chunks (the worker's cost).
// `--profile` prints the time per tfjs kernel for one graph call of 32 chunks on each path.
// For each: chunks/s, the ratio to (a), CPU ms per chunk (all threads of the process: far steadier
// than wall time when other processes compete for the cores), the worst event-loop stall of the
// main thread (what the server's other requests would feel), and RSS after the run.
//
//   node scripts/bench-embeddings.mjs [--chunks 600] [--rounds 1] [--agreement] [--profile]
//                                     [--native-batches 8,32] [--worker-rss]
//                                     [--corpus path/to/obsidian-help-en | --generated 10000]
//
// --generated N samples the chunks from the generated vault of N notes that `npm run bench`'s
// scale parts use (scripts/bench/generate-vault.ts; pseudo-word prose, so more tokens per
// character than English) instead of a corpus folder.
//
// --rounds N runs the main-thread modes N times, interleaved ((a), (b), (b2), (a), …), and reports
// medians: the ratio of each round's rate to the same round's (a), so a busy machine slows both
// sides of a ratio alike. The worker modes run once.
//
// The TypeScript sources are bundled with esbuild into node_modules/.cache/cairn-bench/ first
// (inside the repository, so the bundles' package imports resolve), so this runs without a full
// build and measures exactly the code in companion/embeddings/ and the queue's batch size.
import { bundleForNode } from './bundle-for-node.mjs';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import os from 'node:os';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '1' },
    agreement: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'native-batches': { type: 'string', default: '8,32' },
    'worker-rss': { type: 'boolean', default: false },
    // Internal: the child process of --worker-rss for one runtime.
    'rss-child': { type: 'string' },
    generated: { type: 'string' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const chunkCount = Number(args.chunks);
if (!Number.isInteger(chunkCount) || chunkCount < 1) {
  throw new Error(`--chunks must be a positive integer, got ${args.chunks}`);
}
const nativeBatches = args['native-batches'].split(',').map(Number);
if (nativeBatches.some((size) => !Number.isInteger(size) || size < 1)) {
  throw new Error(`--native-batches must list positive integers, got ${args['native-batches']}`);
}
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  throw new Error(`--rounds must be a positive integer, got ${args.rounds}`);
}

// Its own cache folder: `npm run bench` bundles other parts into cairn-bench/ meanwhile.
const bundle = await bundleForNode('cairn-bench-embeddings', [
  ...['use-lite.ts', 'use-lite-onnx.ts', 'worker-embedder.ts', 'use-lite.worker.ts'].map(
    (name) => `companion/embeddings/${name}`,
  ),
  'companion/search/embedding-queue.ts',
  'shared/embeddings/use-lite-batch-matmul.ts',
  'scripts/bench/generate-vault.ts',
  'shared/search/chunk.ts',
  'shared/markdown/front-matter-fence.ts',
]);
const { UseLiteEmbedder } = await bundle.load('use-lite');
const { UseLiteOnnxEmbedder } = await bundle.load('use-lite-onnx');
const { installBatchedMatMul } = await bundle.load('use-lite-batch-matmul');
const tf = await import('@tensorflow/tfjs-core');
const { WorkerEmbedder, defaultWorkerCount } = await bundle.load('worker-embedder');
const { DEFAULT_EMBED_BATCH } = await bundle.load('embedding-queue');

/** Every Markdown file under `dir`, in a stable order. */
function markdownFiles(dir) {
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(dir);
  return files;
}

/** Paragraph-aligned chunks of about 1,000 characters, note by note, in a stable order. */
function corpusChunks(dir, wanted = Infinity) {
  const files = markdownFiles(dir);
  const chunks = [];
  for (const file of files) {
    let current = '';
    for (const paragraph of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
      if (current && current.length + paragraph.length > 1_000) {
        chunks.push(current);
        current = '';
      }
      current = current ? `${current}\n\n${paragraph}` : paragraph;
      if (current.length >= 800) {
        chunks.push(current);
        current = '';
      }
    }
    if (current.trim()) chunks.push(current);
    if (chunks.length >= wanted) break;
  }
  return chunks.slice(0, wanted);
}

let corpus = args.corpus;
let corpusName = 'obsidian-help-en';
if (args.generated !== undefined) {
  const notes = Number(args.generated);
  if (!Number.isInteger(notes) || notes < 1) {
    throw new Error(`--generated must be a positive integer, got ${args.generated}`);
  }
  const { generateVault } = await bundle.load('generate-vault');
  corpus = mkdtempSync(join(os.tmpdir(), 'cairn-bench-embeddings-'));
  process.on('exit', () => rmSync(corpus, { recursive: true, force: true }));
  generateVault(corpus, notes);
  corpusName = `a generated vault of ${notes} notes`;
}
const everyChunk = corpusChunks(corpus);
// An even sample across the whole corpus (every k-th chunk), not just its first folders.
const stride = Math.max(1, Math.floor(everyChunk.length / chunkCount));
const chunks = everyChunk.filter((_, i) => i % stride === 0).slice(0, chunkCount);
const meanChars = Math.round(chunks.reduce((sum, c) => sum + c.length, 0) / chunks.length);
console.log(
  `${chunks.length} of the ${everyChunk.length} chunks of ${corpusName}, ${meanChars} characters on average`,
);
console.log(`load average at start: ${loadAverage()}`);

/** Worker data for a path: `tfjs` and `fast` are the wasm runtime, `native` is onnxruntime. */
function workerDataFor(path) {
  return path === 'native'
    ? { runtime: 'native' }
    : { runtime: 'wasm', fastMatMul: path === 'fast' };
}

if (args['rss-child'] !== undefined) {
  // One worker on one runtime in this fresh process: RSS before it starts and once it has
  // embedded 64 chunks (the wasm heap and onnxruntime's arena both grow to the largest batch).
  const before = process.memoryUsage.rss();
  const pool = await WorkerEmbedder.start({
    workerFile: pathToFileURL(join(bundle.outdir, 'use-lite.worker.mjs')),
    workers: 1,
    workerData: workerDataFor(args['rss-child']),
  });
  for (let i = 0; i < 64; i += 8) await pool.embed(chunks.slice(i, i + 8));
  const after = process.memoryUsage.rss();
  await pool.close();
  console.log(
    JSON.stringify({ runtime: pool.runtime, beforeMb: before / 1e6, afterMb: after / 1e6 }),
  );
  process.exit(0);
}
if (args['worker-rss']) {
  const { execFileSync } = await import('node:child_process');
  console.log('\nRSS of the process, one worker (64 chunks embedded in messages of 8):');
  for (const path of ['fast', 'native']) {
    const out = execFileSync(process.execPath, [
      fileURLToPath(import.meta.url),
      '--rss-child',
      path,
      '--chunks',
      '64',
      '--corpus',
      corpus,
    ]).toString();
    const result = JSON.parse(out.trim().split('\n').at(-1));
    console.log(
      `  ${result.runtime.padEnd(7)} before ${result.beforeMb.toFixed(0)} MB, with the worker ` +
        `${result.afterMb.toFixed(0)} MB: +${(result.afterMb - result.beforeMb).toFixed(0)} MB`,
    );
  }
  process.exit(0);
}

function loadAverage() {
  return (
    os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(', ') + ` (${os.availableParallelism()} cores)`
  );
}

/** Runs `run` with the process-wide kernel choice of `path` ('tfjs' or 'fast'), then restores tfjs. */
async function onPath(path, run) {
  const restore = path === 'fast' ? installBatchedMatMul() : () => {};
  try {
    return await run();
  } finally {
    restore();
  }
}

/** Runs `run` while a 10 ms timer notes how late it fires: the longest wait is the worst stall. */
async function measure(name, run) {
  let last = performance.now();
  let maxStallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last - 10);
    last = now;
  }, 10);
  let peakRss = process.memoryUsage.rss();
  const rssSampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50);
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await run();
  clearInterval(rssSampler);
  // A run that never yields to the event loop (the main-thread modes) never lets the timer fire:
  // its whole length is then one stall.
  maxStallMs = Math.max(maxStallMs, performance.now() - last - 10);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(ticker);
  return {
    name,
    seconds,
    perSecond: chunks.length / seconds,
    cpuMsPerChunk: (cpu.user + cpu.system) / 1000 / chunks.length,
    maxStallMs: Math.max(0, maxStallMs),
    rssMb: Math.max(peakRss, process.memoryUsage.rss()) / 1e6,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * One row from the runs of a mode: medians, and the ratio to (a): the median of per-round ratios
 * for a mode run in the same rounds as (a), else the ratio to (a)'s median rate.
 */
function summarise(runs, naiveRuns) {
  const ratio =
    runs.length === naiveRuns.length
      ? median(runs.map((r, i) => r.perSecond / naiveRuns[i].perSecond))
      : median(runs.map((r) => r.perSecond)) / median(naiveRuns.map((r) => r.perSecond));
  return {
    name: runs[0].name,
    seconds: median(runs.map((r) => r.seconds)),
    perSecond: median(runs.map((r) => r.perSecond)),
    ratio,
    cpuMsPerChunk: median(runs.map((r) => r.cpuMsPerChunk)),
    maxStallMs: Math.max(...runs.map((r) => r.maxStallMs)),
    rssMb: runs.at(-1).rssMb,
  };
}

const mainThread = await UseLiteEmbedder.load({ fastMatMul: false });
await mainThread.embed(chunks.slice(0, 4)); // warm-up: wasm compilation, first graph run
await onPath('fast', () => mainThread.embed(chunks.slice(0, 4)));
const loadStart = performance.now();
const nativeByBatch = new Map();
for (const batchSize of nativeBatches) {
  nativeByBatch.set(batchSize, await UseLiteOnnxEmbedder.load({ batchSize }));
}
console.log(
  `native load (read, convert to ONNX, create the session): ${((performance.now() - loadStart) / nativeBatches.length).toFixed(0)} ms each`,
);
for (const native of nativeByBatch.values()) await native.embed(chunks.slice(0, 4));

const mainModes = [
  [
    '(a) main thread, one chunk per call',
    async () => {
      for (const chunk of chunks) await mainThread.embed([chunk]);
    },
  ],
  [
    '(b) main thread, batches of 32',
    async () => {
      for (let i = 0; i < chunks.length; i += 32) await mainThread.embed(chunks.slice(i, i + 32));
    },
  ],
  [
    '(b2) main thread, length-bucketed batches, tfjs',
    async () => {
      await mainThread.embed(chunks);
    },
  ],
  [
    '(b2) main thread, length-bucketed batches, fast',
    () => onPath('fast', () => mainThread.embed(chunks)),
  ],
  ...[...nativeByBatch].map(([batchSize, native]) => [
    `(b2) main thread, length-bucketed batches, native, calls of ${batchSize}`,
    async () => {
      await native.embed(chunks);
    },
  ]),
];
const mainRuns = mainModes.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [i, [name, run]] of mainModes.entries()) mainRuns[i].push(await measure(name, run));
}
if (args.profile) {
  for (const path of ['tfjs', 'fast']) {
    const batch = chunks.slice(0, 32);
    const profile = await onPath(path, () => tf.profile(() => mainThread.embed(batch)));
    const byKernel = new Map();
    for (const kernel of profile.kernels) {
      const key =
        kernel.name === 'BatchMatMul' || kernel.name === 'Conv2D'
          ? `${kernel.name} ${kernel.inputShapes.map((shape) => `[${shape}]`).join('x')}`
          : kernel.name;
      byKernel.set(key, (byKernel.get(key) ?? 0) + kernel.kernelTimeMs);
    }
    const total = [...byKernel.values()].reduce((a, b) => a + b, 0);
    console.log(`\nkernel time, one graph call of 32 chunks, ${path}: ${total.toFixed(0)} ms`);
    for (const [key, ms] of [...byKernel].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
      console.log(
        `  ${key.padEnd(58)} ${ms.toFixed(1).padStart(7)} ms ${((100 * ms) / total).toFixed(0).padStart(3)}%`,
      );
    }
  }
  console.log('');
}
const naiveRuns = mainRuns[0];
const results = mainRuns.map((runs) => summarise(runs, naiveRuns));

/** Starts a pool, warms every worker up, measures `run(pool)`, closes the pool. */
async function measurePool(name, workers, run, path = 'fast') {
  const pool = await WorkerEmbedder.start({
    workerFile: pathToFileURL(join(bundle.outdir, 'use-lite.worker.mjs')),
    workers,
    workerData: workerDataFor(path),
  });
  if (pool.runtime !== (path === 'native' ? 'native' : 'wasm')) {
    throw new Error(`${name}: the workers run ${pool.runtime}`);
  }
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => pool.embed([chunks[i]])));
    return summarise([await measure(name, () => run(pool))], naiveRuns);
  } finally {
    await pool.close();
  }
}

for (const workers of [1, 2]) {
  for (const path of ['tfjs', 'fast', 'native']) {
    results.push(
      await measurePool(
        `(c) worker embedder, ${workers} worker${workers > 1 ? 's' : ''}, ${path}`,
        workers,
        async (pool) => {
          const requests = [];
          for (let i = 0; i < chunks.length; i += 32) {
            requests.push(pool.embed(chunks.slice(i, i + 32)));
          }
          await Promise.all(requests);
        },
        path,
      ),
    );
  }
}

const serverWorkers = defaultWorkerCount();
for (const path of ['fast', 'native']) {
  results.push(
    await measurePool(
      `(d) indexer: ${serverWorkers} worker${serverWorkers > 1 ? 's' : ''}, calls of ${DEFAULT_EMBED_BATCH} in turn, ${path}`,
      serverWorkers,
      async (pool) => {
        // As EmbeddingQueue does: one call at a time, each window sorted shortest first.
        for (let i = 0; i < chunks.length; i += DEFAULT_EMBED_BATCH) {
          const window = chunks.slice(i, i + DEFAULT_EMBED_BATCH);
          await pool.embed(window.sort((a, b) => a.length - b.length));
        }
      },
      path,
    ),
  );
}

const rows = results.map((r) => [
  r.name,
  r.perSecond.toFixed(1),
  `${r.ratio.toFixed(2)}x`,
  r.cpuMsPerChunk.toFixed(1),
  r.seconds.toFixed(1),
  r.maxStallMs.toFixed(0),
  r.rssMb.toFixed(0),
]);
const header = [
  'mode',
  'chunks/s',
  'vs (a)',
  'CPU ms/chunk',
  'seconds',
  'max loop stall ms',
  'peak RSS MB',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
if (rounds > 1) console.log(`main-thread rows: medians of ${rounds} interleaved rounds`);
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(`load average at end: ${loadAverage()}`);

if (args.agreement) {
  // As the indexer chunks notes (shared/search/chunk.ts), not the paragraph chunks above.
  const { chunkNote } = await bundle.load('chunk');
  const { locateFrontMatter } = await bundle.load('front-matter-fence');
  const every = markdownFiles(corpus).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const fence = locateFrontMatter(text);
    return chunkNote({
      path: file,
      title: file.split('/').at(-1).replace(/\.md$/, ''),
      aliases: [],
      tags: [],
      body: fence ? text.slice(fence.bodyStart) : text,
      bodyStartLine: fence ? fence.bodyStartLine : 1,
    }).map((chunk) => chunk.text);
  });
  const plain = await mainThread.embed(every);
  const fast = await onPath('fast', () => mainThread.embed(every));
  const native = await nativeByBatch.values().next().value.embed(every);
  const agreement = (name, a, b) => {
    const cosines = a.map((vector, i) => {
      let dot = 0;
      for (let j = 0; j < vector.length; j++) dot += vector[j] * b[i][j];
      return dot; // both unit length
    });
    const min = Math.min(...cosines);
    const mean = cosines.reduce((x, y) => x + y, 0) / cosines.length;
    const below = cosines.filter((c) => c < 0.9999).length;
    console.log(
      `agreement, ${name}, every chunk of the corpus (${every.length}): cosine min ${min.toFixed(9)}, ` +
        `mean ${mean.toFixed(9)}, below 0.9999: ${below}`,
    );
  };
  console.log('');
  agreement('fast vs tfjs', fast, plain);
  agreement('native vs fast', native, fast);
  agreement('native vs tfjs', native, plain);
}
for (const native of nativeByBatch.values()) await native.dispose();
mainThread.dispose();
