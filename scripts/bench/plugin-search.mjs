#!/usr/bin/env node
// Benchmark of the plugin's in-vault search (plugin/search/): the real engine, indexer and
// IndexedDB store (fake-indexeddb standing in for the browser's), on obsidian-help-en and on a
// generated vault of --notes notes:
//   (a) first index, keyword only and with a synthetic 512-dim embedder (the model's own cost
//       is scripts/bench-embeddings.mjs): time, notes/s, the longest stretch between two of the
//       indexer's UI turns (the slice budget is 25 ms; awaited I/O counts too), the longest the
//       event loop was blocked (maxStallMs: what a user would feel), peak heap;
//   (b) restart over the unchanged vault: time until searchable, files re-read, texts
//       re-embedded (both must be 0);
//   (c) search latency p50/p95 over the vault's own words, keyword and hybrid;
//   (c') on the snapshot's vectors alone: the sign-code prefilter against the exact scan
//       (recall@10, ms per query) and the longest step of loading them (codes recomputed);
//   (d) what the store holds per 1,000 notes (chunk records as JSON + the index snapshot's
//       arrays and strings + raw vector bytes).
// onload time is measured on the built main.js by test/plugin/bundle-smoke.test.ts.
//
//   node scripts/bench/plugin-search.mjs [--notes 10000] [--corpus path/to/obsidian-help-en]
import { bundleForNode } from '../bundle-for-node.mjs';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import 'fake-indexeddb/auto';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const noteCount = Number(args.notes);
if (!Number.isInteger(noteCount) || noteCount < 1)
  throw new Error(`--notes must be a positive integer, got ${args.notes}`);

const { load } = await bundleForNode('cairn-bench-plugin-search', [
  'plugin/search/search-engine.ts',
  'plugin/search/device-indexer.ts',
  'plugin/search/search-store.ts',
  'plugin/search/flat-vector-index.ts',
  'plugin/search/engine-snapshot.ts',
  'shared/search/exclude-rules.ts',
  'shared/search/tokenize.ts',
  'scripts/bench/generate-vault.ts',
]);
const { createSearchEngine } = await load('search-engine');
const { DeviceIndexer } = await load('device-indexer');
const { SearchStore } = await load('search-store');
const { ExcludeRules } = await load('exclude-rules');
const { tokenize } = await load('tokenize');
const { generateVault } = await load('generate-vault');
const { FlatVectorIndex } = await load('flat-vector-index');
const { splitList } = await load('engine-snapshot');

/** Files on disk as the indexer's VaultSource; counts reads. */
class DiskVault {
  constructor(root) {
    this.root = root;
    this.reads = 0;
    this.files = new Map();
    const walk = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.md')) {
          const stat = statSync(full);
          const path = relative(root, full).split(sep).join('/');
          this.files.set(path, { path, mtime: stat.mtimeMs, size: stat.size });
        }
      }
    };
    walk(root);
  }
  list() {
    return [...this.files.values()];
  }
  stat(path) {
    return this.files.get(path) ?? null;
  }
  read(path) {
    this.reads++;
    return readFile(join(this.root, path), 'utf8');
  }
}

/** Deterministic 512-dim bag-of-hashed-words vectors: costs what a fast model's I/O costs, no more. */
class SyntheticEmbedder {
  constructor() {
    this.model = { id: 'synthetic-512', dims: 512 };
    this.embedded = 0;
  }
  async embed(texts) {
    this.embedded += texts.length;
    return texts.map((text) => {
      const vector = new Float32Array(512);
      for (const token of tokenize(text)) {
        let hash = 2166136261;
        for (let i = 0; i < token.length; i++)
          hash = Math.imul(hash ^ token.charCodeAt(i), 16777619);
        vector[(hash >>> 0) % 512] += 1;
      }
      let norm = 0;
      for (const value of vector) norm += value * value;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < 512; i++) vector[i] /= norm;
      return vector;
    });
  }
}

/** Real time; records the longest stretch between UI turns. */
class MeasuringScheduler {
  constructor() {
    this.lastTurn = performance.now();
    this.longest = 0;
  }
  now() {
    return performance.now();
  }
  yieldToUi() {
    this.longest = Math.max(this.longest, performance.now() - this.lastTurn);
    return new Promise((done) =>
      setImmediate(() => {
        this.lastTurn = performance.now();
        done();
      }),
    );
  }
  after(ms, fn) {
    const id = setTimeout(fn, ms);
    return () => clearTimeout(id);
  }
}

let storeCounter = 0;
async function indexOnce(vault, storeKey, embedder) {
  const store = await SearchStore.open(storeKey);
  const engine = createSearchEngine({ embedder });
  const scheduler = new MeasuringScheduler();
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const problems = [];
  const indexer = new DeviceIndexer({
    source: vault,
    store,
    engine,
    embedder,
    scheduler,
    exclude: new ExcludeRules([]),
    onProblem: (problem) => problems.push(problem),
  });
  // The longest the event loop was blocked: a UI stall, without the awaited I/O that the
  // slice measure (time between the indexer's own UI turns) also counts.
  const stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  const started = performance.now();
  let readyMs = null;
  const ready = (async () => {
    while (!indexer.ready) await new Promise((done) => setImmediate(done));
    readyMs = performance.now() - started;
  })();
  await indexer.start();
  await ready;
  const ms = performance.now() - started;
  stalls.disable();
  clearInterval(sampler);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return {
    store,
    engine,
    ms,
    readyMs,
    longestSliceMs: scheduler.longest,
    maxStallMs: stalls.max / 1e6,
    peakHeap,
    problems,
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function searchLatency(engine, queries) {
  const times = [];
  for (const query of queries) {
    const started = performance.now();
    await engine.search(query, { limit: 10 });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function storedBytes(store) {
  let json = 0;
  for (const file of await store.allFiles()) json += JSON.stringify(file).length;
  return json + snapshotBytes(await store.readSnapshot());
}

/** Bytes of the engine snapshot's typed arrays and strings (2 bytes per UTF-16 unit). */
function snapshotBytes(value) {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') return value.length * 2;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value !== 'object') return 8;
  return Object.values(value).reduce((sum, part) => sum + snapshotBytes(part), 0);
}

/** Queries from the vault's own text: two or three of its words, as a person would type. */
function queriesFrom(words, count) {
  const queries = [];
  for (let i = 0; i < count; i++) {
    const a = words[(i * 7919) % words.length];
    const b = words[(i * 104729 + 13) % words.length];
    queries.push(i % 2 === 0 ? `${a} ${b}` : `how do I ${a} with ${b}`);
  }
  return queries;
}

/** The prefiltered vector search against the exact one on the snapshot's own vectors. */
async function vectorQuality(store, embedder, queries) {
  const snapshot = await store.readSnapshot();
  const saved = snapshot?.vectors;
  if (!saved) return null;
  const vectors = { dims: saved.dims, keys: splitList(saved.keys), data: saved.data };
  const steps = FlatVectorIndex.loadInSteps(vectors);
  let longestLoadStep = 0;
  let loadMs = 0;
  let index;
  for (;;) {
    const started = performance.now();
    const step = steps.next();
    const took = performance.now() - started;
    longestLoadStep = Math.max(longestLoadStep, took);
    loadMs += took;
    if (step.done) {
      index = step.value;
      break;
    }
  }
  const exact = FlatVectorIndex.load(vectors, { rerank: Infinity });
  const queryVectors = await embedder.embed(queries);
  let found = 0;
  let wanted = 0;
  const fast = [];
  const slow = [];
  for (const query of queryVectors) {
    let started = performance.now();
    const got = index.search(query, 60, 0.1);
    fast.push(performance.now() - started);
    started = performance.now();
    const truth = exact.search(query, 10, 0.1);
    slow.push(performance.now() - started);
    const top = new Set(got.slice(0, 10).map((hit) => hit.key));
    found += truth.filter((hit) => top.has(hit.key)).length;
    wanted += truth.length;
  }
  fast.sort((a, b) => a - b);
  slow.sort((a, b) => a - b);
  return {
    recallAt10: wanted === 0 ? 1 : found / wanted,
    prefilterP50: percentile(fast, 50),
    exactP50: percentile(slow, 50),
    loadMs,
    longestLoadStep,
  };
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const rows = [];
const vectorRows = [];

async function run(label, root, words) {
  for (const embedded of [false, true]) {
    const vault = new DiskVault(root);
    const notes = vault.files.size;
    const key = `bench${++storeCounter}`;
    const embedder = embedded ? new SyntheticEmbedder() : null;
    global.gc?.();
    const first = await indexOnce(vault, key, embedder);
    const queries = queriesFrom(words, 200);
    const latency = await searchLatency(first.engine, queries);
    const json = await storedBytes(first.store);
    const vectors = embedder ? (await first.store.countVectors()) * 512 * 4 : 0;
    first.store.close();

    vault.reads = 0;
    const restartEmbedder = embedded ? new SyntheticEmbedder() : null;
    const second = await indexOnce(vault, key, restartEmbedder);
    // After the restart: its loads leave ~200 MB of garbage that would land in the restart's GC.
    const quality = embedder ? await vectorQuality(second.store, embedder, queries) : null;
    second.store.close();
    rows.push({
      vault: label,
      mode: embedded ? 'hybrid (synthetic 512-d)' : 'keyword',
      notes,
      chunks: first.engine.size,
      firstIndexS: (first.ms / 1000).toFixed(2),
      notesPerS: Math.round(notes / (first.ms / 1000)),
      longestSliceMs: first.longestSliceMs.toFixed(1),
      maxStallMs: first.maxStallMs.toFixed(1),
      peakHeapMB: mb(first.peakHeap),
      restartReadyS: (second.readyMs / 1000).toFixed(2),
      restartSliceMs: second.longestSliceMs.toFixed(1),
      restartStallMs: second.maxStallMs.toFixed(1),
      restartReads: vault.reads,
      restartEmbeds: restartEmbedder ? restartEmbedder.embedded : 0,
      searchP50ms: latency.p50.toFixed(1),
      searchP95ms: latency.p95.toFixed(1),
      storeMBPer1k: mb(((json + vectors) / notes) * 1000),
      problems: first.problems.length,
    });
    if (quality) {
      vectorRows.push({
        vault: label,
        vectors: first.engine.size,
        recallAt10: quality.recallAt10.toFixed(3),
        prefilterP50ms: quality.prefilterP50.toFixed(2),
        exactP50ms: quality.exactP50.toFixed(2),
        codesLoadMs: quality.loadMs.toFixed(1),
        longestLoadStepMs: quality.longestLoadStep.toFixed(1),
      });
    }
    console.error(`  ${label} ${embedded ? 'hybrid' : 'keyword'} done`);
  }
}

const help = args.corpus;
const helpWords = [];
{
  const vault = new DiskVault(help);
  for (const path of vault.files.keys())
    helpWords.push(...tokenize(path.replace(/\.md$/, '')).filter((w) => w.length > 3));
}
await run('obsidian-help-en', help, helpWords);

const temp = mkdtempSync(join(tmpdir(), 'cairn-bench-plugin-search-'));
try {
  const generated = generateVault(temp, noteCount);
  await run(
    `generated ${noteCount.toLocaleString('en')}`,
    temp,
    generated.vocabulary.slice(0, 2000),
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}

function table(tableRows) {
  const columns = Object.keys(tableRows[0]);
  const widths = columns.map((c) =>
    Math.max(c.length, ...tableRows.map((r) => String(r[c]).length)),
  );
  const line = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join('  ');
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of tableRows) console.log(line(columns.map((c) => row[c])));
}
table(rows);
if (vectorRows.length > 0) {
  console.log(
    '\nVector side alone (pool of 60, floor 0.1; recall@10 of the prefilter vs the exact scan):',
  );
  table(vectorRows);
}
console.log(
  '\nTargets: restart ready < 1.5 s and search p50 < 20 ms at 10k notes; longest slice ≈ 25 ms budget + one file.',
);
console.log(
  'Store sizes are of fake-indexeddb records (JSON of chunk records + 4 bytes per vector dimension).',
);
