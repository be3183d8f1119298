#!/usr/bin/env node
// Benchmark of the built-in embedding model (USE-lite) on obsidian-help-en chunks of ~1,000
// characters: (a) one chunk per call on the main thread, (b) batches of 32 on the main thread,
// (c) the worker embedder (one worker, then a pool of two). For each: chunks/s, the ratio to (a),
// the worst event-loop stall of the main thread (what the server's other requests would feel),
// and RSS after the run.
//
//   node scripts/bench-embeddings.mjs [--chunks 600] [--corpus path/to/obsidian-help-en]
//
// The TypeScript sources are bundled with esbuild into node_modules/.cache/cairn-bench/ first
// (inside the repository, so the bundles' package imports resolve), so this runs without a full
// build and measures exactly the code in companion/embeddings/.
import { bundleForNode } from './bundle-for-node.mjs';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '600' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const chunkCount = Number(args.chunks);
if (!Number.isInteger(chunkCount) || chunkCount < 1) {
  throw new Error(`--chunks must be a positive integer, got ${args.chunks}`);
}

const bundle = await bundleForNode(
  'cairn-bench',
  ['use-lite.ts', 'worker-embedder.ts', 'use-lite.worker.ts'].map(
    (name) => `companion/embeddings/${name}`,
  ),
);
const { UseLiteEmbedder } = await bundle.load('use-lite');
const { WorkerEmbedder } = await bundle.load('worker-embedder');

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
  const start = performance.now();
  await run();
  const seconds = (performance.now() - start) / 1000;
  clearInterval(ticker);
  return {
    name,
    seconds,
    perSecond: chunks.length / seconds,
    maxStallMs: Math.max(0, maxStallMs),
    rssMb: process.memoryUsage().rss / 1e6,
  };
}

const results = [];
const mainThread = await UseLiteEmbedder.load();
await mainThread.embed(chunks.slice(0, 4)); // warm-up: wasm compilation, first graph run

results.push(
  await measure('(a) main thread, one chunk per call', async () => {
    for (const chunk of chunks) await mainThread.embed([chunk]);
  }),
);
results.push(
  await measure('(b) main thread, batches of 32', async () => {
    for (let i = 0; i < chunks.length; i += 32) await mainThread.embed(chunks.slice(i, i + 32));
  }),
);
mainThread.dispose();

for (const workers of [1, 2]) {
  const pool = await WorkerEmbedder.start({
    workerFile: pathToFileURL(join(bundle.outdir, 'use-lite.worker.mjs')),
    workers,
  });
  await pool.embed(chunks.slice(0, 4 * workers));
  results.push(
    await measure(`(c) worker embedder, ${workers} worker${workers > 1 ? 's' : ''}`, async () => {
      // As the indexer would: requests of 32 chunks, all in flight at once.
      const requests = [];
      for (let i = 0; i < chunks.length; i += 32)
        requests.push(pool.embed(chunks.slice(i, i + 32)));
      await Promise.all(requests);
    }),
  );
  await pool.close();
}

const naive = results[0].perSecond;
const rows = results.map((r) => [
  r.name,
  r.perSecond.toFixed(1),
  `${(r.perSecond / naive).toFixed(2)}x`,
  r.seconds.toFixed(1),
  r.maxStallMs.toFixed(0),
  r.rssMb.toFixed(0),
]);
const header = ['mode', 'chunks/s', 'vs (a)', 'seconds', 'max loop stall ms', 'RSS MB'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of rows) console.log(line(row));
