#!/usr/bin/env node
// Benchmark of the built-in embedding model (USE-lite) on obsidian-help-en chunks of ~1,000
// characters:
//   (a)  main thread, one chunk per call (the naive loop every other row is compared with);
//   (b)  main thread, calls of 32 chunks in corpus order (each call sorted by token count inside);
//   (b2) main thread, length-bucketed: one call with every chunk, so the embedder sorts them all
//        by token count and each graph call of 32 holds chunks of similar length;
//   (c)  the worker embedder with one worker, then a pool of two, every request in flight at once;
//   (d)  the worker embedder as the server starts it (default pool) and as the indexer's
//        embedding queue calls it: one call of DEFAULT_EMBED_BATCH texts at a time, shortest
//        first.
// For each: chunks/s, the ratio to (a), CPU ms per chunk (all threads of the process: far steadier
// than wall time when other processes compete for the cores), the worst event-loop stall of the
// main thread (what the server's other requests would feel), and RSS after the run.
//
//   node scripts/bench-embeddings.mjs [--chunks 600] [--rounds 1] [--corpus path/to/obsidian-help-en]
//
// --rounds N runs the main-thread modes N times, interleaved ((a), (b), (b2), (a), …), and reports
// medians: the ratio of each round's rate to the same round's (a), so a busy machine slows both
// sides of a ratio alike. The worker modes run once.
//
// The TypeScript sources are bundled with esbuild into node_modules/.cache/cairn-bench/ first
// (inside the repository, so the bundles' package imports resolve), so this runs without a full
// build and measures exactly the code in companion/embeddings/ and the queue's batch size.
import { bundleForNode } from './bundle-for-node.mjs';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '1' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const chunkCount = Number(args.chunks);
if (!Number.isInteger(chunkCount) || chunkCount < 1) {
  throw new Error(`--chunks must be a positive integer, got ${args.chunks}`);
}
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  throw new Error(`--rounds must be a positive integer, got ${args.rounds}`);
}

const bundle = await bundleForNode('cairn-bench', [
  ...['use-lite.ts', 'worker-embedder.ts', 'use-lite.worker.ts'].map(
    (name) => `companion/embeddings/${name}`,
  ),
  'companion/indexer/embedding-queue.ts',
]);
const { UseLiteEmbedder } = await bundle.load('use-lite');
const { WorkerEmbedder, defaultWorkerCount } = await bundle.load('worker-embedder');
const { DEFAULT_EMBED_BATCH } = await bundle.load('embedding-queue');

/** Paragraph-aligned chunks of about 1,000 characters, note by note, in a stable order. */
function corpusChunks(dir, wanted) {
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

const chunks = corpusChunks(args.corpus, chunkCount);
const meanChars = Math.round(chunks.reduce((sum, c) => sum + c.length, 0) / chunks.length);
console.log(`${chunks.length} chunks of obsidian-help-en, ${meanChars} characters on average`);

/** Runs `run` while a 10 ms timer notes how late it fires: the longest wait is the worst stall. */
async function measure(name, run) {
  let last = performance.now();
  let maxStallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last - 10);
    last = now;
  }, 10);
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await run();
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
    rssMb: process.memoryUsage().rss / 1e6,
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

const mainThread = await UseLiteEmbedder.load();
await mainThread.embed(chunks.slice(0, 4)); // warm-up: wasm compilation, first graph run

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
    '(b2) main thread, length-bucketed batches',
    async () => {
      await mainThread.embed(chunks);
    },
  ],
];
const mainRuns = mainModes.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [i, [name, run]] of mainModes.entries()) mainRuns[i].push(await measure(name, run));
}
mainThread.dispose();
const naiveRuns = mainRuns[0];
const results = mainRuns.map((runs) => summarise(runs, naiveRuns));

/** Starts a pool, warms every worker up, measures `run(pool)`, closes the pool. */
async function measurePool(name, workers, run) {
  const pool = await WorkerEmbedder.start({
    workerFile: pathToFileURL(join(bundle.outdir, 'use-lite.worker.mjs')),
    workers,
  });
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => pool.embed([chunks[i]])));
    return summarise([await measure(name, () => run(pool))], naiveRuns);
  } finally {
    await pool.close();
  }
}

for (const workers of [1, 2]) {
  results.push(
    await measurePool(
      `(c) worker embedder, ${workers} worker${workers > 1 ? 's' : ''}`,
      workers,
      async (pool) => {
        const requests = [];
        for (let i = 0; i < chunks.length; i += 32) {
          requests.push(pool.embed(chunks.slice(i, i + 32)));
        }
        await Promise.all(requests);
      },
    ),
  );
}

const serverWorkers = defaultWorkerCount();
results.push(
  await measurePool(
    `(d) indexer: ${serverWorkers} worker${serverWorkers > 1 ? 's' : ''}, calls of ${DEFAULT_EMBED_BATCH} in turn`,
    serverWorkers,
    async (pool) => {
      // As EmbeddingQueue does: one call at a time, each window sorted shortest first.
      for (let i = 0; i < chunks.length; i += DEFAULT_EMBED_BATCH) {
        const window = chunks.slice(i, i + DEFAULT_EMBED_BATCH);
        await pool.embed(window.sort((a, b) => a.length - b.length));
      }
    },
  ),
);

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
  'RSS MB',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
if (rounds > 1) console.log(`main-thread rows: medians of ${rounds} interleaved rounds`);
console.log(line(header));
for (const row of rows) console.log(line(row));
