#!/usr/bin/env node
// The companion as users run it (the built CLI in its own process, real HTTP) while it embeds a
// vault with the built-in model, and once it is quiet:
//   (1) the first index of the vault: embedding throughput seen from outside (chunks embedded
//       per second of the pass) and peak RSS;
//   (2) hybrid search latency over HTTP, p50/p95/max, with the model loaded and nothing to
//       embed;
//   (3) the same while the workers embed a changed copy of the first 40% of the notes (every
//       line changed, so every chunk is new; 40% so that most texts keep their vectors and
//       search stays hybrid, see QUERYABLE_COVERAGE): embedding runs in worker threads with
//       bounded queued work and queries get a worker of their own, so p95 should stay within
//       2x of (2);
//   (4) RSS after the idle period (--idle-seconds, the companion's CAIRN_EMBED_IDLE_SECONDS),
//       when the workers have exited; then the first search after idling (keyword while the
//       model loads) and the time until searches are hybrid again.
// Queries are the questions of test/fixtures/eval/obsidian-help-questions.json, one at a time
// with --gap-ms between them (a person typing, not a load test).
//
//   node scripts/bench/embed-serving.mjs [--files all] [--workers <n>] [--idle-seconds 60]
//                                        [--gap-ms 100] [--corpus path/to/obsidian-help-en]
//
// --files N uses the first N notes of the corpus (by path), for a shorter run. Builds
// dist/companion first (esbuild, --companion-only).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    files: { type: 'string' },
    workers: { type: 'string' },
    'idle-seconds': { type: 'string', default: '60' },
    'gap-ms': { type: 'string', default: '100' },
    corpus: { type: 'string', default: resolve(repo, '../shared/corpora/obsidian-help-en') },
  },
});
const fileLimit = args.files === undefined ? Infinity : Number(args.files);
const idleSeconds = Number(args['idle-seconds']);
const gapMs = Number(args['gap-ms']);
if (!(fileLimit >= 1)) throw new Error(`--files must be a positive integer, got ${args.files}`);
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
const notes = readdirSync(args.corpus, { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
  .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
  .sort()
  .slice(0, fileLimit);
/** Writes the notes under `folder` of the vault, each text changed by `edit`. */
function writeNotes(folder, edit, share = 1) {
  for (const file of notes.slice(0, Math.ceil(notes.length * share))) {
    const target = join(vault, folder, relative(args.corpus, file));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, edit(readFileSync(file, 'utf8')));
  }
}
writeNotes('notes', (text) => text);
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
    ...['--vault', vault, '--data', join(work, 'data'), '--port', String(port)],
    ...['--log-level', 'warn'],
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

/**
 * Waits until an embedding pass has started and finished, running `between` (if given) between
 * samples; returns the chunks embedded (the largest pending count seen), seconds and peak RSS.
 */
async function embeddingPass(between) {
  let started;
  let chunks = 0;
  let peakRss = 0;
  const waitingSince = performance.now();
  for (;;) {
    const m = await metrics();
    peakRss = Math.max(peakRss, m.rss);
    if (m.pendingEmbeddings > 0) {
      started ??= performance.now();
      chunks = Math.max(chunks, m.pendingEmbeddings);
    } else if (started === undefined && performance.now() - waitingSince > 300_000) {
      throw new Error('no embedding pass started within 5 minutes');
    }
    if (started !== undefined && m.pendingEmbeddings === 0 && m.pendingFiles === 0) {
      return { chunks, seconds: (performance.now() - started) / 1000, peakRss };
    }
    if (between) await between();
    else await sleep(200);
  }
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const cells = (values) => values.map((v) => String(v).padStart(8)).join(' ');
const row = (name, results) => {
  const ms = results.map((r) => r.ms);
  const hybrid = results.filter((r) => r.mode === 'hybrid').length;
  const stats = [pct(ms, 50), pct(ms, 95), Math.max(...ms)].map((v) => v.toFixed(1));
  return `${name.padEnd(36)} ${cells([results.length, ...stats, hybrid])}`;
};
const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

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

  // (1) the first index: throughput and peak RSS, sampled every 200 ms.
  const first = await embeddingPass();

  // (2) hybrid searches with the model loaded and nothing to embed.
  const quiet = [];
  for (let i = 0; i < 60; i++) {
    quiet.push(await search());
    await sleep(gapMs);
  }
  const loaded = await metrics();

  // (3) a second copy of the notes appears, every line changed: searches while it is embedded.
  writeNotes('edited', (text) => text.replace(/^(.+)$/gm, '$1 (edited)'), 0.4);
  const during = [];
  const second = await embeddingPass(async () => {
    during.push(await search());
    await sleep(gapMs);
  });

  // (4) idle: wait out the idle period, then the first searches after it.
  await sleep(idleSeconds * 1000 + 5_000);
  const idle = await metrics();
  const wake = await search();
  const wakeStarted = performance.now();
  let hybridAgainMs = NaN;
  for (let i = 0; i < 400; i++) {
    const result = await search();
    if (result.mode === 'hybrid') {
      hybridAgainMs = performance.now() - wakeStarted;
      break;
    }
    await sleep(50);
  }
  const woken = await metrics();

  const load = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(', ');
  console.log(
    `companion over HTTP: ${notes.length} notes of the corpus, then the same notes edited; ` +
      `workers ${args.workers ?? 'default'}, idle ${idleSeconds} s, load average ${load}`,
  );
  console.log(`${'search'.padEnd(36)} ${cells(['n', 'p50 ms', 'p95 ms', 'max ms', 'hybrid'])}`);
  console.log(row('model loaded, nothing to embed', quiet));
  console.log(row('while embedding the edited copy', during));
  const p95 = (results) =>
    pct(
      results.map((r) => r.ms),
      95,
    );
  const hybridDuring = during.filter((r) => r.mode === 'hybrid');
  console.log(row('  of which hybrid', hybridDuring));
  const ratio = p95(hybridDuring) / p95(quiet);
  console.log(`p95 while embedding / p95 quiet (hybrid searches): ${ratio.toFixed(2)}x`);
  for (const [name, pass] of [
    ['first index', first],
    ['edited copy', second],
  ]) {
    const rate = (pass.chunks / pass.seconds).toFixed(1);
    console.log(
      `${name}: ${pass.chunks} chunks embedded in ${pass.seconds.toFixed(1)} s = ${rate} chunks/s, ` +
        `peak RSS ${mb(pass.peakRss)}`,
    );
  }
  console.log(
    `RSS: model loaded ${mb(loaded.rss)} (${loaded.workers} workers); after ${idleSeconds} s idle ` +
      `${mb(idle.rss)} (${idle.workers} workers); after waking ${mb(woken.rss)} (${woken.workers} workers)`,
  );
  console.log(
    `first search after idling: ${wake.ms.toFixed(1)} ms, mode ${wake.mode}; ` +
      `hybrid again after ${hybridAgainMs.toFixed(0)} ms`,
  );
} finally {
  child.kill('SIGINT');
  await exited;
  rmSync(work, { recursive: true, force: true });
}
