#!/usr/bin/env node
// Benchmark of the companion's vault indexer (companion/search/) on obsidian-help-en, copied
// `--copies` times into a temp vault (each copy in its own folder) to reach a realistic size:
//   (a) initial scan, keyword-only: files/s, chunks/s, worst event-loop stall (what HTTP
//       requests would feel while the scan runs), database size;
//   (b) restart over the unchanged vault (content hashes: nothing re-read or re-chunked);
//   (c) embedding pass with a synthetic 512-dim embedder (stores vectors; the model's own
//       cost is scripts/bench-embeddings.mjs), then a restart that embeds nothing;
//   (d) query latency, p50/p95 over the corpus's own note titles as queries: keyword (FTS5),
//       vector KNN (no filter; the in-memory binary prefilter + exact re-rank of
//       companion/search/vector-matrix.ts), vector with a folder filter (the folder's own
//       chunks compared exactly).
//
//   node scripts/bench/index.mjs [--copies 10] [--corpus path/to/obsidian-help-en]
import { bundleForNode } from '../bundle-for-node.mjs';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    copies: { type: 'string', default: '10' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const copies = Number(args.copies);
if (!Number.isInteger(copies) || copies < 1)
  throw new Error(`--copies must be a positive integer, got ${args.copies}`);

const bundle = await bundleForNode(
  'cairn-bench-index',
  ['companion/search/index.ts', 'companion/db/open.ts', 'companion/logging.ts'],
  { withRequire: true },
);
const { VaultIndexer } = await bundle.load('index');
const { openDatabase } = await bundle.load('open');
const { createLogger } = await bundle.load('logging');

const work = mkdtempSync(join(tmpdir(), 'cairn-bench-index-'));
const vault = join(work, 'vault');
for (let i = 0; i < copies; i++) cpSync(args.corpus, join(vault, `copy-${i}`), { recursive: true });
const dbFile = join(work, 'cairn.db');
const clock = { now: () => Date.now() };
const logger = createLogger('silent');

/** Deterministic 512-dim vectors from word hashes: the storage and query cost of real ones. */
const DIMS = 512;
function vectorOf(text) {
  const v = new Float32Array(DIMS);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % DIMS] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
let embedded = 0;
const embedder = {
  model: { id: 'bench-hash-512', dims: DIMS },
  embed: async (texts) => {
    embedded += texts.length;
    return texts.map(vectorOf);
  },
};

async function run(label, options) {
  const db = openDatabase(dbFile);
  const stall = monitorEventLoopDelay({ resolution: 5 });
  stall.enable();
  const started = performance.now();
  const indexer = new VaultIndexer({ vault, db, clock, logger, watch: false, ...options });
  await indexer.start();
  await indexer.whenEmbedded();
  const ms = performance.now() - started;
  stall.disable();
  return { label, indexer, db, ms, maxStallMs: stall.max / 1e6, indexed: indexer.indexedCount };
}

const fileCount = readdirSync(vault, { recursive: true }).filter((name) =>
  String(name).endsWith('.md'),
).length;
const rows = [];
const first = await run('(a) initial scan, keyword-only', {});
const files = first.indexer.store.fileCount();
const chunks = first.indexer.store.chunkCount();
rows.push([
  first.label,
  first.ms,
  first.indexed,
  `${Math.round(files / (first.ms / 1000))} files/s, ${Math.round(chunks / (first.ms / 1000))} chunks/s`,
  first.maxStallMs,
]);
await first.indexer.close();
first.db.close();

const second = await run('(b) restart, unchanged vault', {});
rows.push([
  second.label,
  second.ms,
  second.indexed,
  `${(first.ms / second.ms).toFixed(1)}× faster than (a)`,
  second.maxStallMs,
]);
await second.indexer.close();
second.db.close();

const third = await run('(c) embedding pass (synthetic 512-dim)', { embedder });
const embeddedFirst = embedded;
rows.push([
  third.label,
  third.ms,
  third.indexed,
  `${embeddedFirst} texts embedded, ${Math.round(embeddedFirst / (third.ms / 1000))} stored/s`,
  third.maxStallMs,
]);
await third.indexer.close();
third.db.close();

const fourth = await run('(c2) restart with the same model', { embedder });
rows.push([
  fourth.label,
  fourth.ms,
  fourth.indexed,
  `${embedded - embeddedFirst} texts embedded`,
  fourth.maxStallMs,
]);

const q = fourth.indexer.queries;
const titles = fourth.db
  .prepare("SELECT DISTINCT title FROM index_files WHERE path LIKE 'copy-0/%'")
  .all()
  .map((r) => r.title);
function latency(fn) {
  const times = [];
  for (const title of titles) {
    const t = performance.now();
    fn(title);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return `p50 ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms`;
}
const queryRows = [
  ['keyword (FTS5, BM25, prefix), limit 20', latency((t) => q.keyword(t, {}, 20))],
  ['keyword, folder filter, limit 20', latency((t) => q.keyword(t, { folder: 'copy-3' }, 20))],
  ['vector KNN (sqlite-vec), limit 20', latency((t) => q.vector(vectorOf(t), {}, 20))],
  [
    'vector, folder filter (KNN ×20 then filter; exact scan if short), limit 20',
    latency((t) => q.vector(vectorOf(t), { folder: 'copy-3' }, 20)),
  ],
  ['chunks(20 ids)', latency((t) => q.chunks(q.keyword(t, {}, 20).map((h) => h.chunkId)))],
];
await fourth.indexer.close();
fourth.db.close();
const dbBytes =
  statSync(dbFile).size + (statSync(`${dbFile}-wal`, { throwIfNoEntry: false })?.size ?? 0);

console.log(
  `vault: ${copies} × obsidian-help-en = ${fileCount} notes, ${files} indexed, ${chunks} chunks; database ${(dbBytes / 1048576).toFixed(1)} MB with ${DIMS}-dim vectors`,
);
console.log('');
console.log('| run | time | files re-read | throughput / note | worst event-loop stall |');
console.log('|---|---:|---:|---|---:|');
for (const [label, ms, indexed, note, stallMs] of rows) {
  console.log(
    `| ${label} | ${(ms / 1000).toFixed(2)} s | ${indexed} | ${note} | ${stallMs.toFixed(0)} ms |`,
  );
}
console.log('');
console.log(`| query (${titles.length} note titles as queries) | latency |`);
console.log('|---|---|');
for (const [label, value] of queryRows) console.log(`| ${label} | ${value} |`);
rmSync(work, { recursive: true, force: true });
