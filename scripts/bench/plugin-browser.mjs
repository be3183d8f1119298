#!/usr/bin/env node
// Benchmark of the plugin's on-device search and related notes in headless Chromium with the
// browser's real IndexedDB (plugin-search.mjs and plugin-related.mjs run the same code in Node
// over fake-indexeddb). The page (plugin-browser-page.ts, bundled for the browser) runs the
// real DeviceIndexer, SearchStore, search engine, browser time slicer and related-notes adapter
// over a generated vault of --notes notes (scripts/bench/generate-vault.ts) served from
// 127.0.0.1, with a synthetic 512-dim embedder (the model's own cost is
// scripts/bench-embeddings.mjs). At full speed and with the CPU throttled --rate× (DevTools
// Emulation.setCPUThrottlingRate) as a stand-in for a phone. One profile indexes at full speed
// and restarts twice (full speed, then throttled: same store); a second, fresh profile runs a
// throttled first index for at most --throttled-index-s (at 10k notes a whole one would take
// ~10 min on the 2-core bench machine), for its stalls and how far it got:
//   first index: time until the indexer's start() settles (indexed, embedded, snapshot written)
//                and the longest main-thread stall (longest 'longtask' entry; how late a 10 ms
//                timer fired is shown beside it);
//   restart:     the page loaded again (same profile): navigation start → first query answered
//                from the snapshot, the longest stall until then, files re-read and texts
//                re-embedded (both must be 0);
//   store:       navigator.storage.estimate().usage after the first index;
//   search:      p50/p95 over --queries queries of the vault's own words, hybrid and keyword
//                (keyword: the same store restored without an embedder);
//   related:     a 'file-open' → the related-notes ranking ready, p50/p95 over --switches notes.
// Targets (issue #16) are a column of the table; missing one is reported, not a failure.
// Phone profile (issue #27), a third fresh profile throttled --rate×: a first index with no
// model (on-device keyword search), then the JS heap (DevTools HeapProfiler.collectGarbage,
// then Runtime.getHeapUsage: used / allocated) after indexing and after --queries searches,
// against a 250 MB budget. `--phone-only` runs just that table.
//
//   node scripts/bench/plugin-browser.mjs [--notes 10000] [--queries 200] [--switches 100] [--rate 4]
//                                         [--throttled-index-s 40] [--phone-only]
import esbuild from 'esbuild';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleForNode, repo } from '../bundle-for-node.mjs';

const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '200' },
    switches: { type: 'string', default: '100' },
    rate: { type: 'string', default: '4' },
    'throttled-index-s': { type: 'string', default: '40' },
    'phone-only': { type: 'boolean', default: false },
  },
});
const positive = (name) => {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, got ${args[name]}`);
  return value;
};
const noteCount = positive('notes');
const queryCount = positive('queries');
const switches = positive('switches');
const rate = positive('rate');
const throttledIndexCapMs = positive('throttled-index-s') * 1000;
/** A phase that takes longer than this is stuck: the bench stops with an error. */
const PHASE_TIMEOUT_MS = 300_000;
/** The phone profile's JS heap budget (issue #27), with on-device keyword search. */
const PHONE_HEAP_BUDGET_MB = 250;

const { load } = await bundleForNode('cairn-bench-plugin-browser', [
  'test/helpers/browser.ts',
  'scripts/bench/generate-vault.ts',
  'plugin/search/note-input.ts',
]);
const { chromiumPath, launchChromium } = await load('browser');
if (!existsSync(chromiumPath)) {
  console.error(
    `plugin-browser: Chromium not found at ${chromiumPath}. Install it with 'apt-get install -y chromium' (or set CHROMIUM_PATH).`,
  );
  process.exit(1);
}
const { generateVault, buildQueries } = await load('generate-vault');
const { noteInputFromMarkdown } = await load('note-input');

/** The page bundle; `obsidian` and Svelte components are stubs (see the page's header). */
async function bundlePage() {
  const stubs = {
    name: 'bench-stubs',
    setup(build) {
      build.onResolve({ filter: /^obsidian$/ }, () => ({ path: 'obsidian', namespace: 'stub' }));
      build.onResolve({ filter: /\.svelte$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
      build.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({
        contents:
          a.path === 'obsidian'
            ? 'export class ItemView {}\nexport class TFile {}\n'
            : 'export default {};\n',
      }));
    },
  };
  const built = await esbuild.build({
    entryPoints: [join(repo, 'scripts/bench/plugin-browser-page.ts')],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'chrome120',
    logLevel: 'warning',
    plugins: [stubs],
  });
  return built.outputFiles[0].text;
}

/** The generated vault as /list.json (paths, stats, tags, queries) and /texts.json. */
function vaultPayload() {
  const temp = mkdtempSync(join(tmpdir(), 'cairn-bench-plugin-browser-'));
  try {
    const generated = generateVault(temp, noteCount);
    const paths = [...generated.paths].sort();
    const texts = {};
    const files = paths.map((path) => {
      const full = join(temp, path);
      const text = readFileSync(full, 'utf8');
      texts[path] = text;
      const input = noteInputFromMarkdown(path, text);
      const { mtimeMs, size } = statSync(full);
      return { path, mtime: mtimeMs, size, tags: input.ok ? input.input.tags : [] };
    });
    const queries = buildQueries(generated.vocabulary, queryCount);
    return {
      list: JSON.stringify({ files, queries, switches }),
      texts: JSON.stringify(texts),
      bytes: generated.bytes,
    };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

function serve(routes) {
  const server = createServer((request, response) => {
    const route = routes[new URL(request.url, 'http://localhost').pathname];
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': route.type, 'cache-control': 'no-store' });
    response.end(route.body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took over ${PHASE_TIMEOUT_MS / 1000} s`)),
      PHASE_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Loads `phase` into the page and waits for its result (or, with `capMs`, for at most that). */
async function runPhase(page, base, phase, label, capMs) {
  await page.goto(`${base}/?phase=${phase}`, { waitUntil: 'commit' });
  // At 'commit' the page script may not have run yet: wait for it to set the promise.
  await page.waitForFunction(() => globalThis.benchResult !== undefined, null, { timeout: 0 });
  const result = page.evaluate(() => globalThis.benchResult);
  let timer;
  const cap =
    capMs === undefined
      ? new Promise(() => {})
      : new Promise((resolve) => {
          timer = setTimeout(resolve, capMs, 'capped');
        });
  const outcome = await withTimeout(Promise.race([result, cap]), `${phase} at ${label}`);
  clearTimeout(timer);
  if (outcome === 'capped') {
    // Where the index stands, then stop it with the page (the profile is thrown away).
    const progress = await page.evaluate(() => globalThis.benchProgress());
    result.catch(() => undefined);
    console.error(`  ${label}: ${phase} stopped after ${capMs / 1000} s`);
    return { capped: true, indexMs: progress.elapsedMs, stall: progress.stall, progress };
  }
  console.error(`  ${label}: ${phase} done`);
  return outcome;
}

/** A fresh profile with its page, its DevTools session and the bench origin loaded. */
async function openProfile(base) {
  const browser = await launchChromium();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (error) => console.error(`  page error: ${error.message}`));
  // Throttling is set once the page shows the bench origin (a later navigation stays in its process).
  await page.goto(`${base}/?phase=none`);
  const cdp = await browser.context.newCDPSession(page);
  const throttle = (cpuRate) => cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuRate });
  /** The page's JS heap in MB after a full garbage collection: used and allocated. */
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
    return { usedMb: usedSize / 1024 / 1024, totalMb: totalSize / 1024 / 1024 };
  };
  return { browser, page, throttle, heap };
}

/**
 * The phone profile: a fresh profile throttled --rate×, a first index with no embedder, the heap
 * weighed once indexed and again after every query was searched.
 */
async function runPhone(base) {
  const phone = await openProfile(base);
  try {
    await phone.throttle(rate);
    const index = await runPhase(phone.page, base, 'phone', `phone (${rate}× CPU)`);
    const afterIndex = await phone.heap();
    const search = await withTimeout(
      phone.page.evaluate(() => globalThis.benchPhoneSearch()),
      'phone searches',
    );
    const afterSearch = await phone.heap();
    return { index, afterIndex, search, afterSearch };
  } finally {
    await phone.browser.close();
  }
}

function phoneTable({ index, afterIndex, search, afterSearch }) {
  const mb = ({ usedMb, totalMb }) =>
    `${usedMb.toFixed(1)} MB used / ${totalMb.toFixed(1)} MB allocated ${usedMb <= PHONE_HEAP_BUDGET_MB ? '✓' : '✗'}`;
  return [
    `| phone profile: ${noteCount.toLocaleString('en')} notes, ${index.chunks.toLocaleString('en')} chunks, ${rate}× CPU, keyword only | target | measured |`,
    '| --- | --- | --- |',
    `| first index (no model) | — | ${(index.indexMs / 1000).toFixed(2)} s |`,
    `| JS heap after indexing | ≤ ${PHONE_HEAP_BUDGET_MB} MB | ${mb(afterIndex)} |`,
    `| JS heap after ${queryCount} keyword searches (p50 / p95 ${search.p50.toFixed(1)} / ${search.p95.toFixed(1)} ms) | ≤ ${PHONE_HEAP_BUDGET_MB} MB | ${mb(afterSearch)} |`,
    '',
    'Heap: DevTools HeapProfiler.collectGarbage, then Runtime.getHeapUsage of the page (the ' +
      "vault's texts dropped once indexed: Obsidian keeps them on disk). A desktop Chromium's " +
      'heap stands in for a phone WebView with the same engine; throttling slows the CPU only.',
  ].join('\n');
}

/**
 * Profile 1: first index at full speed, restart at full speed, restart again throttled (the
 * same store). Profile 2: a first index throttled from scratch, for at most --throttled-index-s
 * (at 10k notes it would take longer than the whole bench may), for its stalls.
 */
async function runAll(base) {
  const runs = [{}, {}];
  const one = await openProfile(base);
  try {
    runs[0].index = await runPhase(one.page, base, 'index', '1× CPU');
    runs[0].restart = await runPhase(one.page, base, 'restart', '1× CPU');
    await one.throttle(rate);
    runs[1].restart = await runPhase(one.page, base, 'restart', `${rate}× CPU`);
  } finally {
    await one.browser.close();
  }
  const two = await openProfile(base);
  try {
    await two.throttle(rate);
    runs[1].index = await runPhase(two.page, base, 'index', `${rate}× CPU`, throttledIndexCapMs);
  } finally {
    await two.browser.close();
  }
  return runs;
}

console.error(`plugin-browser: ${noteCount.toLocaleString('en')} notes, Chromium ${chromiumPath}`);
const started = performance.now();
const [page, vault] = [await bundlePage(), vaultPayload()];
const server = await serve({
  '/': {
    type: 'text/html',
    body: '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>',
  },
  '/page.js': { type: 'text/javascript', body: page },
  '/list.json': { type: 'application/json', body: vault.list },
  '/texts.json': { type: 'application/json', body: vault.texts },
});
let runs;
let phone;
try {
  const base = `http://127.0.0.1:${server.address().port}`;
  if (!args['phone-only']) runs = await runAll(base);
  phone = await runPhone(base);
} finally {
  server.close();
}
if (args['phone-only']) {
  console.log(phoneTable(phone));
  console.log(`Total run ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  process.exit(0);
}

const ms = (value) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
const seconds = (value) => `${(value / 1000).toFixed(2)} s`;
const stallOf = (stall) => stall.longTaskMs;
/** Chromium reports tasks of 50 ms and more; none means every task was shorter. */
const stallText = (stall) => (stall.longTaskMs === 0 ? 'none ≥ 50 ms' : ms(stall.longTaskMs));
const mark = (ok) => (ok ? '✓' : '✗');
const count = (value) => value.toLocaleString('en');
/** The first index's time, or how far a capped one got. */
const indexTime = ({ index }) =>
  index.capped
    ? `stopped at ${seconds(index.indexMs)}: ${index.progress.phase} ${count(index.progress.done)}/${count(index.progress.total)}`
    : seconds(index.indexMs);
const within = (index) =>
  index.capped ? ` (in those ${(index.indexMs / 1000).toFixed(0)} s)` : '';
/** Per row: its targets at 1× and throttled (null: none) and a cell per run, [text, ok?]. */
const rows = [
  {
    what: 'first index (indexed, embedded, snapshot written)',
    target: [null, null],
    cell: (run) => [indexTime(run)],
  },
  {
    what: 'first index: longest main-thread stall',
    target: [50, 150],
    unit: 'ms',
    cell: ({ index }, limit) => [
      `${stallText(index.stall)}${within(index)}`,
      stallOf(index.stall) < limit,
    ],
  },
  {
    what: 'restart: navigation start → first query answered',
    target: [1500, 4000],
    unit: 's',
    cell: ({ restart }, limit) => [seconds(restart.answeredMs), restart.answeredMs < limit],
  },
  {
    what: 'restart: longest main-thread stall until then',
    target: [50, 150],
    unit: 'ms',
    cell: ({ restart }, limit) => [stallText(restart.stall), stallOf(restart.stall) < limit],
  },
  {
    what: 'restart: files re-read / texts re-embedded',
    target: [0, 0],
    unit: 'count',
    cell: ({ restart }) => [
      `${restart.reads} / ${restart.embedded}`,
      restart.reads === 0 && restart.embedded === 0,
    ],
  },
  {
    what: 'store size after the first index (navigator.storage.estimate)',
    target: [null, null],
    cell: ({ index }) => [
      index.capped ? 'same store as 1×' : `${(index.storeBytes / 1024 / 1024).toFixed(1)} MB`,
    ],
  },
  {
    what: 'search p50 / p95, hybrid',
    target: [null, null],
    cell: ({ restart }) => [`${ms(restart.hybrid.p50)} / ${ms(restart.hybrid.p95)}`],
  },
  {
    what: 'search p50 / p95, keyword',
    target: [null, null],
    cell: ({ restart }) => [`${ms(restart.keyword.p50)} / ${ms(restart.keyword.p95)}`],
  },
  {
    what: `related notes after a file switch p50 / p95 (${switches} switches)`,
    target: [100, 100],
    unit: 'ms',
    cell: ({ restart }, limit) => [
      `${ms(restart.related.p50)} / ${ms(restart.related.p95)}`,
      restart.related.p95 < limit,
    ],
  },
];
const targetText = ({ target: [full, throttled], unit }) => {
  if (full === null) return '—';
  if (unit === 'count') return `${full}`;
  const show = (v) => (unit === 's' ? `${v / 1000} s` : `${v} ms`);
  return full === throttled
    ? `< ${show(full)}`
    : `< ${show(full)} (${rate}×: < ${show(throttled)})`;
};
const lines = [
  `| ${count(noteCount)} notes, ${count(runs[0].index.chunks)} chunks | target | 1× CPU | ${rate}× CPU throttled |`,
  '| --- | --- | --- | --- |',
];
for (const row of rows) {
  const cells = runs.map((run, i) => {
    const [text, ok] = row.cell(run, row.target[i]);
    return ok === undefined ? text : `${text} ${mark(ok)}`;
  });
  lines.push(`| ${row.what} | ${targetText(row)} | ${cells.join(' | ')} |`);
}
console.log(lines.join('\n'));
const turns = (turns) => `${count(turns.count)} (${seconds(turns.waitMs)} waiting)`;
const detail = ({ index, restart }) =>
  [
    `stall as long task / late timer ${ms(index.stall.longTaskMs)} / ${ms(index.stall.timerLateMs)} (index), ` +
      `${ms(restart.stall.longTaskMs)} / ${ms(restart.stall.timerLateMs)} (restart)`,
    `restart: script start ${ms(restart.scriptStartMs)}, listing in ${ms(restart.listedMs)}, ` +
      `searchable at ${ms(restart.readyMs)}, first query ${ms(restart.firstQueryMs)}, longest load steps ` +
      Object.entries(restart.longestSteps)
        .map(([name, { ms: spent, step }]) => `${name} ${ms(spent)} (step ${step})`)
        .join(', ') +
      ', long tasks until answered ' +
      (restart.longTasks
        .map((task) => `${ms(task.durationMs)} at ${ms(task.startMs)}`)
        .join(', ') || 'none') +
      ', store reads until answered ' +
      Object.entries(restart.readMs)
        .map(([name, spent]) => `${name} ${ms(spent)}`)
        .join(', ') +
      `, indexer settled ${seconds(restart.settledMs)}, UI turns ${turns(restart.turns)}`,
    index.capped ? null : `index UI turns ${turns(index.turns)}`,
    index.longTasks?.length
      ? 'index long tasks ' +
        index.longTasks
          .map((task) => `${ms(task.durationMs)} at ${seconds(task.startMs)} (${task.label})`)
          .join(', ')
      : null,
    `related max ${ms(restart.related.max)}, ${restart.related.shownAvg.toFixed(1)} shown`,
    `calibration loop ${index.capped ? '' : `${ms(index.calibrationMs)} (index) / `}${ms(restart.calibrationMs)} (restart)`,
  ]
    .filter(Boolean)
    .join('; ');
console.log(
  [
    '',
    `Headless Chromium (${chromiumPath}) with its real IndexedDB on 127.0.0.1; generated vault ` +
      `(${(vault.bytes / 1024 / 1024).toFixed(1)} MB of Markdown); synthetic 512-dim embedder (the model's own cost is ` +
      'scripts/bench-embeddings.mjs). Restarts: one profile, indexed at 1×, reloaded at 1× then throttled. ' +
      `The throttled first index runs in a fresh profile for at most ${throttledIndexCapMs / 1000} s. ` +
      "Stall: the longest 'longtask' entry (late timer: how late a 10 ms timer fired, which adds the time the " +
      'renderer waited for a core on a loaded machine). Related: from the adapter ' +
      'asking the index for candidates to the view state being ready (after its 120 ms switch delay).',
    ...runs.map((run, i) => `${i === 0 ? '1×' : `${rate}×`}: ${detail(run)}`),
    `Total run ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    '',
    phoneTable(phone),
  ].join('\n'),
);
