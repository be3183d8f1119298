#!/usr/bin/env node
// The companion as users run it (the built CLI in its own process, real HTTP) while it embeds a
// vault with the built-in model, and once it is quiet:
//   (a) search latency over HTTP, p50/p95/max, while the workers embed (cairn_index_embeddings_
//       pending > 0) and after they finish with the model still loaded: embedding runs in worker
//       threads with bounded queued work, so the first should stay within 2x of the second;
//   (b) the process's RSS (worker threads included): peak while embedding, right after, and
//       after the idle period (--idle-seconds, the companion's CAIRN_EMBED_IDLE_SECONDS) when
//       the workers have exited; then the first search after idling (keyword while the model
//       loads) and the time until searches are hybrid again;
//   (c) embedding throughput seen from outside: chunks embedded per second of the pass.
// Queries are the questions of test/fixtures/eval/obsidian-help-questions.json, one at a time
// with --gap-ms between them (a person typing, not a load test).
//
//   node scripts/bench/embed-serving.mjs [--copies 1] [--workers <n>] [--idle-seconds 60]
//                                        [--gap-ms 100] [--corpus path/to/obsidian-help-en]
//
// Builds dist/companion first (esbuild, --companion-only).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    copies: { type: 'string', default: '1' },
    workers: { type: 'string' },
    'idle-seconds': { type: 'string', default: '60' },
    'gap-ms': { type: 'string', default: '100' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const copies = Number(args.copies);
const idleSeconds = Number(args['idle-seconds']);
const gapMs = Number(args['gap-ms']);
if (!Number.isInteger(copies) || copies < 1) throw new Error(`--copies must be a positive integer`);
if (!(idleSeconds >= 1)) throw new Error(`--idle-seconds must be at least 1`);
if (!(gapMs >= 0)) throw new Error(`--gap-ms must be a number of milliseconds`);

const build = spawnSync(
  process.execPath,
  ['esbuild.config.mjs', 'production', '--companion-only'],
  {
    cwd: repo,
    encoding: 'utf8',
  },
);
if (build.status !== 0) throw new Error(`companion build failed:\n${build.stderr}`);

const work = mkdtempSync(join(os.tmpdir(), 'cairn-embed-serving-'));
const vault = join(work, 'vault');
for (let i = 0; i < copies; i++) cpSync(args.corpus, join(vault, `copy-${i}`), { recursive: true });
const questions = JSON.parse(
  readFileSync(join(repo, 'test/fixtures/eval/obsidian-help-questions.json'), 'utf8'),
).questions.map((q) => q.question);

const token = 'bench-token-0123456789abcdef';
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAIRN_'))),
  CAIRN_TOKEN: token,
  CAIRN_EMBED_IDLE_SECONDS: String(idleSeconds),
  ...(args.workers ? { CAIRN_EMBED_WORKERS: args.workers } : {}),
};
const child = spawn(
  process.execPath,
  [
    join(repo, 'dist/companion/cli.mjs'),
    '--vault',
    vault,
    '--data',
    join(work, 'data'),
    '--port',
    String(port),
    '--log-level',
    'warn',
  ],
  { env, stdio: ['ignore', 'ignore', 'inherit'] },
);
const exited = new Promise((done) => child.once('exit', done));

const headers = { authorization: `Bearer ${token}` };
async function metrics() {
  const text = await (await fetch(`${base}/metrics`, { headers })).text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    rss: value('process_resident_memory_bytes'),
    pendingFiles: value('cairn_index_pending_files'),
    pendingEmbeddings: value('cairn_index_embeddings_pending'),
    chunks: value('cairn_index_chunks'),
    workers: value('cairn_embedding_workers_running'),
  };
}
let nextQuestion = 0;
async function search() {
  const q = questions[nextQuestion++ % questions.length];
  const started = performance.now();
  const response = await fetch(`${base}/api/v1/search?q=${encodeURIComponent(q)}&limit=10`, {
    headers,
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`search answered ${response.status}`);
  return { ms: performance.now() - started, mode: body.mode };
}

try {
  const startedAt = performance.now();
  for (;;) {
    try {
      await metrics();
      break;
    } catch {
      if (performance.now() - startedAt > 120_000) throw new Error('the companion did not start');
      await sleep(100);
    }
  }

  // (a, b) while embedding: searches one after another, RSS sampled between them.
  const during = [];
  let peakRss = 0;
  let firstPending;
  let embeddingStarted;
  let embeddingEnded;
  for (;;) {
    const m = await metrics();
    peakRss = Math.max(peakRss, m.rss);
    if (m.pendingEmbeddings > 0 && embeddingStarted === undefined) {
      embeddingStarted = performance.now();
      firstPending = m.pendingEmbeddings;
    }
    if (embeddingStarted !== undefined && m.pendingEmbeddings === 0 && m.pendingFiles === 0) {
      embeddingEnded = performance.now();
      break;
    }
    const result = await search();
    if (m.pendingEmbeddings > 0) during.push(result);
    await sleep(gapMs);
  }
  const afterPass = await metrics();
  // The count seen at the first sample, not every chunk: some were embedded before it.
  const chunksPerSecond = firstPending / ((embeddingEnded - embeddingStarted) / 1000);

  // (a) the same searches with the model loaded and nothing to embed.
  const quiet = [];
  for (let i = 0; i < Math.max(30, Math.min(during.length, 100)); i++) {
    quiet.push(await search());
    await sleep(gapMs);
  }
  const loaded = await metrics();

  // (b) idle: wait out the idle period, then the first searches after it.
  await sleep(idleSeconds * 1000 + 5_000);
  const idle = await metrics();
  const wake = await search();
  const wakeStarted = performance.now();
  let hybridAgainMs = NaN;
  for (let i = 0; i < 200; i++) {
    const result = await search();
    if (result.mode === 'hybrid') {
      hybridAgainMs = performance.now() - wakeStarted;
      break;
    }
    await sleep(50);
  }
  const woken = await metrics();

  const pct = (values, p) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  const row = (name, results) => {
    const ms = results.map((r) => r.ms);
    const hybrid = results.filter((r) => r.mode === 'hybrid').length;
    return `${name.padEnd(34)} ${String(results.length).padStart(5)} ${pct(ms, 50).toFixed(1).padStart(8)} ${pct(ms, 95).toFixed(1).padStart(8)} ${Math.max(
      ...ms,
    )
      .toFixed(1)
      .padStart(8)} ${String(hybrid).padStart(7)}`;
  };
  const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
  console.log(
    `companion over HTTP: ${afterPass.chunks} chunks (${copies} cop${copies > 1 ? 'ies' : 'y'} of obsidian-help-en), ` +
      `workers ${args.workers ?? 'default'}, idle ${idleSeconds} s, load average ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(', ')}`,
  );
  console.log(
    `${'search'.padEnd(34)} ${'n'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'hybrid'.padStart(7)}`,
  );
  console.log(row('while embedding', during));
  console.log(row('model loaded, nothing to embed', quiet));
  const ratio =
    pct(
      during.map((r) => r.ms),
      95,
    ) /
    pct(
      quiet.map((r) => r.ms),
      95,
    );
  console.log(`p95 while embedding / p95 quiet: ${ratio.toFixed(2)}x`);
  console.log(
    `embedding pass: ${firstPending} chunks in ${((embeddingEnded - embeddingStarted) / 1000).toFixed(1)} s = ${chunksPerSecond.toFixed(1)} chunks/s`,
  );
  console.log(
    `RSS: peak while embedding ${mb(peakRss)}; model loaded ${mb(loaded.rss)} (${loaded.workers} workers); ` +
      `after ${idleSeconds} s idle ${mb(idle.rss)} (${idle.workers} workers); after waking ${mb(woken.rss)} (${woken.workers} workers)`,
  );
  console.log(
    `first search after idling: ${wake.ms.toFixed(1)} ms, mode ${wake.mode}; hybrid again after ${hybridAgainMs.toFixed(0)} ms`,
  );
} finally {
  child.kill('SIGINT');
  await exited;
  rmSync(work, { recursive: true, force: true });
}
