#!/usr/bin/env node
// Cairn Sync benchmark (issue #23, item 6; docs/sync.md "Performance"): the plugin's real sync
// engine against the real built companion (dist/companion/cli.mjs in its own process, keyword
// index only: CAIRN_EMBEDDINGS=none) over loopback, on the generated vault of --notes notes
// (scripts/bench/generate-vault.ts) that the companion holds and journals on its first start.
//   first sync:   an empty device (engine over an in-memory vault, scripts/bench/sync-node.ts)
//                 runs one pass until it holds every file; requests made, peak per minute;
//   open:         the same device's engine made again (Obsidian reopened), nothing changed:
//                 one pass (list, compare, pull) until "in sync";
//   edit:         two open devices (the runner with the plugin's settings: a pass once edits
//                 settle, the long poll), --edits edits on one, each timed until the other's
//                 vault has it: p50 / p95;
//   Chromium:     a device in headless Chromium (scripts/bench/sync-browser-page.ts: the engine
//                 with its real IndexedDB store, the vault in OPFS) makes its first sync, then is
//                 loaded again with nothing changed; its memory sampled every 250 ms: JS heap
//                 used (DevTools Runtime.getHeapUsage), the renderer's and every Chromium
//                 process's PSS (the IndexedDB back end lives outside the renderer; PSS counts
//                 a page shared by several processes once) and RSS, above the idle page's
//                 (after a collection);
//   companion:    its RSS (from /proc) idle, peak during each first sync, and after --quiet-s.
// Targets are a column of the table; a miss is reported, not a failure.
//
//   node scripts/bench/sync.mjs [--notes 10000] [--edits 50] [--quiet-s 10] [--no-browser]
//                               [--cli path/to/dist/companion/cli.mjs]
//
// Builds dist/companion first unless --cli names a build. Linux only (RSS and PSS from /proc).
import esbuild from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { bundleForNode, repo } from '../bundle-for-node.mjs';

const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    edits: { type: 'string', default: '50' },
    'quiet-s': { type: 'string', default: '10' },
    'no-browser': { type: 'boolean', default: false },
    cli: { type: 'string' },
  },
});
const positive = (name) => {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, got ${args[name]}`);
  return value;
};
const noteCount = positive('notes');
const editCount = positive('edits');
const quietSeconds = Number(args['quiet-s']);
if (!(quietSeconds >= 0)) throw new Error('--quiet-s must be a number of seconds ≥ 0');
if (process.platform !== 'linux') throw new Error('the sync bench reads /proc: Linux only');

const TOKEN = 'bench-sync-owner-token-0123456789abcdefghijk';
const TARGETS = { firstSyncS: 60, openS: 1, p50S: 1, p95S: 3, deviceMb: 150 };

if (args.cli === undefined) {
  console.error('sync: building dist/companion (esbuild, --companion-only)');
  const build = spawnSync(
    process.execPath,
    ['esbuild.config.mjs', 'production', '--companion-only'],
    { cwd: repo, encoding: 'utf8' },
  );
  if (build.status !== 0) throw new Error(`companion build failed:\n${build.stderr}`);
}
const cli = resolve(args.cli ?? join(repo, 'dist/companion/cli.mjs'));

const { load } = await bundleForNode('cairn-bench-sync', [
  'scripts/bench/sync-node.ts',
  'test/helpers/browser.ts',
]);
const node = await load('sync-node');
const { chromiumPath, launchChromium } = await load('browser');
const withBrowser = !args['no-browser'];
if (withBrowser && !existsSync(chromiumPath)) {
  console.error(
    `sync: Chromium not found at ${chromiumPath}; install it or pass --no-browser (the memory row is then missing)`,
  );
  process.exit(1);
}

const work = mkdtempSync(join(os.tmpdir(), 'cairn-bench-sync-'));
const vault = join(work, 'vault');
const started = performance.now();
let companion;
const results = {};
try {
  const generated = node.generateVault(vault, noteCount);
  console.error(
    `sync: ${noteCount.toLocaleString('en')} notes (${(generated.bytes / 2 ** 20).toFixed(1)} MB) in ${vault}`,
  );
  companion = await startCompanion();
  const base = `http://127.0.0.1:${companion.port}`;
  const journalled = await untilJournalled(base);
  results.journalS = journalled.seconds;
  await sleep(2000);
  results.companionIdle = rssOf(companion.child.pid);

  // 1. First sync of an empty device, then the same device opened again.
  const phone = node.emptyDevice('Bench phone', base, TOKEN);
  companion.peak = 0;
  results.first = await node.timedPass(phone);
  results.first.files = phone.vault.paths().length;
  results.first.peakPerMinute = phone.device.log.peakPerMinute();
  results.first.peakPerSecond = phone.device.log.peakPerSecond();
  results.first.kinds = Object.fromEntries(phone.device.log.kinds);
  results.companionFirstPeak = companion.peak;
  console.error(
    `  first sync (Node): ${(results.first.ms / 1000).toFixed(1)} s; ${results.first.times}`,
  );
  const reopenedPhone = node.reopened(phone, base, TOKEN);
  results.open = await node.timedPass(reopenedPhone);
  console.error(
    `  open, nothing changed (Node): ${results.open.ms.toFixed(0)} ms; ${results.open.times}`,
  );

  // 2. A second device, then an edit on one reaching the other through the long poll.
  const laptop = node.emptyDevice('Bench laptop', base, TOKEN);
  companion.peak = 0;
  results.second = await node.timedPass(laptop);
  results.companionSecondPeak = companion.peak;
  console.error(`  second device's first sync: ${(results.second.ms / 1000).toFixed(1)} s`);
  results.edits = await node.editLatencies(laptop, reopenedPhone, editCount);
  console.error(`  ${editCount} edits laptop → phone done`);

  // 3. The memory row: a device in Chromium with its IndexedDB.
  if (withBrowser) {
    companion.peak = 0;
    results.browser = await runBrowser(base);
    results.companionBrowserPeak = companion.peak;
  }
  await sleep(quietSeconds * 1000);
  results.companionAfter = rssOf(companion.child.pid);
  results.requestsPerFile = results.first.requests / Math.max(1, results.first.files);
} finally {
  if (companion) await stopCompanion(companion);
  rmSync(work, { recursive: true, force: true });
}
printTable();
// Runners stopped still have a long poll in flight (requestUrl cannot abort one).
process.exit(0);

// ---------------------------------------------------------------------------------------------

async function freePort() {
  const server = createNetServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

async function startCompanion() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [cli, '--vault', vault, '--data', join(work, 'data'), '--port', String(port)],
    {
      env: { ...process.env, CAIRN_EMBEDDINGS: 'none', CAIRN_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((done) => child.once('exit', done));
  const handle = { child, port, exited, stderr: () => stderr, peak: 0, sampler: null };
  handle.sampler = setInterval(() => {
    try {
      handle.peak = Math.max(handle.peak, rssOf(child.pid));
    } catch {
      // exited
    }
  }, 250);
  return handle;
}

async function stopCompanion(handle) {
  clearInterval(handle.sampler);
  if (handle.child.exitCode === null) handle.child.kill('SIGTERM');
  await Promise.race([handle.exited, sleep(15_000)]);
}

function rssOf(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(text)[1]) * 1024;
}

/**
 * Waits until `GET changes?since=0` lists every generated file (the first start's scan) and the
 * keyword index has nothing pending.
 */
async function untilJournalled(base) {
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const begun = performance.now();
  for (;;) {
    if (companion.child.exitCode !== null)
      throw new Error(`the companion exited (${companion.child.exitCode}):\n${companion.stderr()}`);
    if (performance.now() - begun > 20 * 60_000) throw new Error('not journalled in 20 minutes');
    let listed = 0;
    try {
      let since = 0;
      for (;;) {
        const response = await fetch(`${base}/api/v1/sync/changes?since=${since}&limit=5000`, {
          headers,
        });
        if (!response.ok) break;
        const page = await response.json();
        listed += page.changes.length;
        since = page.next;
        if (!page.more) break;
      }
    } catch {
      // not listening yet
    }
    if (listed >= noteCount) {
      // And indexed: a companion still indexing its vault would slow every sync request.
      const status = await fetch(`${base}/api/v1/status`, { headers }).then((r) => r.json());
      if (status.index?.pending === 0) return { seconds: (performance.now() - begun) / 1000 };
    }
    await sleep(1000);
  }
}

// --- Chromium --------------------------------------------------------------------------------

async function bundlePage() {
  const built = await esbuild.build({
    entryPoints: [join(repo, 'scripts/bench/sync-browser-page.ts')],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'chrome120',
    logLevel: 'warning',
  });
  return built.outputFiles[0].text;
}

/** The page and its script; everything under /api/ proxied to the companion. */
async function servePage(companionBase, script) {
  const target = new URL(companionBase);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path.startsWith('/api/')) {
      const outgoing = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path,
          method: request.method,
          headers: { ...request.headers, host: target.host },
          agent,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      outgoing.on('error', () => response.destroy());
      request.pipe(outgoing);
      return;
    }
    if (path.startsWith('/page.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      response.end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
    response.end(
      '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>',
    );
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { server, agent, base: `http://127.0.0.1:${server.address().port}` };
}

/** Every process below this one (Chromium's browser, renderers, utilities), by type. */
function chromiumProcesses() {
  const parents = new Map();
  const types = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      types.set(Number(entry), /--type=([\w-]+)/.exec(cmdline)?.[1] ?? 'browser');
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid) => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === process.pid) return true;
    return false;
  };
  return [...parents.keys()]
    .filter((pid) => below(pid) && pid !== process.pid)
    .map((pid) => ({ pid, type: types.get(pid) }));
}

/**
 * A process's proportional set size: its private pages plus its share of every page it maps
 * with others. Summed over Chromium's processes it counts each page once; RSS counts a page
 * once per process mapping it, so a utility process Chromium starts mid-sync (IndexedDB's, the
 * file system's) adds the whole shared Chromium binary and libraries again to an RSS sum.
 */
function pssOf(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)/m.exec(text)[1]) * 1024;
}

/**
 * CPU seconds (user + system) Chromium's processes have used so far: with other work on the
 * machine, a phase's wall time says how busy the machine was as much as how much work the
 * device did; its CPU time says the latter.
 */
function chromiumCpuSeconds() {
  const ticksPerSecond = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const { pid } of chromiumProcesses()) {
    if (pid === companion.child.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: fields 14 and 15 of /proc/<pid>/stat, 12 and 13 after the name.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / ticksPerSecond;
}

function chromiumRss() {
  let renderer = 0;
  let all = 0;
  let rendererPss = 0;
  let allPss = 0;
  for (const { pid, type } of chromiumProcesses()) {
    // The companion is a child of this process too, not of Chromium.
    if (pid === companion.child.pid) continue;
    let rss;
    let pss;
    try {
      rss = rssOf(pid);
      pss = pssOf(pid);
    } catch {
      continue;
    }
    all += rss;
    allPss += pss;
    if (type === 'renderer') {
      renderer += rss;
      rendererPss += pss;
    }
  }
  return { renderer, all, rendererPss, allPss };
}

async function runBrowser(companionBase) {
  const script = await bundlePage();
  const { server, agent, base } = await servePage(companionBase, script);
  const browser = await launchChromium();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (error) => console.error(`  page error: ${error.message}`));
    const cdp = await browser.context.newCDPSession(page);
    const runPhase = async (phase) => {
      await page.goto(`${base}/?phase=${phase}&token=${TOKEN}`);
      await page.waitForFunction(() => globalThis.benchStart !== undefined);
      await cdp.send('HeapProfiler.collectGarbage');
      await sleep(500);
      const idleHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      const idleRss = chromiumRss();
      const peak = { heap: idleHeap, ...idleRss };
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const { usedSize } = await cdp.send('Runtime.getHeapUsage');
          const rss = chromiumRss();
          peak.heap = Math.max(peak.heap, usedSize);
          peak.renderer = Math.max(peak.renderer, rss.renderer);
          peak.all = Math.max(peak.all, rss.all);
          peak.rendererPss = Math.max(peak.rendererPss, rss.rendererPss);
          peak.allPss = Math.max(peak.allPss, rss.allPss);
          await sleep(250);
        }
      })();
      const cpuBefore = chromiumCpuSeconds();
      const result = await page.evaluate(() => globalThis.benchStart());
      const cpuSeconds = chromiumCpuSeconds() - cpuBefore;
      sampling = false;
      await sampler;
      await cdp.send('HeapProfiler.collectGarbage');
      const afterHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      const storage = await page.evaluate(() => navigator.storage.estimate());
      console.error(
        `  Chromium ${phase}: ${(result.ms / 1000).toFixed(1)} s (Chromium CPU ${cpuSeconds.toFixed(2)} s), ${result.files} files; ${result.times}`,
      );
      return {
        ...result,
        cpuSeconds,
        idleHeap,
        idleRss,
        peak,
        afterHeap,
        storageBytes: storage.usage,
      };
    };
    const first = await runPhase('first');
    const reopen = await runPhase('reopen');
    return { first, reopen };
  } finally {
    await browser.close();
    server.close();
    agent.destroy();
  }
}

// --- the table -------------------------------------------------------------------------------

function printTable() {
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  const s = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const mark = (ok) => (ok ? '✓' : '✗');
  const count = (value) => value.toLocaleString('en');
  const { first, open, second, edits, browser } = results;
  const p50 = node.percentile(edits.ms, 0.5);
  const p95 = node.percentile(edits.ms, 0.95);
  const rows = [
    [
      `first sync of ${count(noteCount)} notes to an empty device (Node engine, loopback)`,
      `≤ ${TARGETS.firstSyncS} s`,
      `${s(first.ms)} ${mark(first.ms <= TARGETS.firstSyncS * 1000)} (${count(first.files)} files, ${count(first.requests)} requests)`,
    ],
    [
      'the same, a second empty device',
      `≤ ${TARGETS.firstSyncS} s`,
      `${s(second.ms)} ${mark(second.ms <= TARGETS.firstSyncS * 1000)}`,
    ],
    [
      `a device opening with nothing changed, to "in sync" (Node engine)`,
      `≤ ${TARGETS.openS} s`,
      `${s(open.ms)} ${mark(open.ms <= TARGETS.openS * 1000)} (${open.requests} request${open.requests === 1 ? '' : 's'})`,
    ],
    [
      `an edit on one open device in the other's vault, p50 / p95 (${edits.ms.length} edits${edits.timedOut ? `, ${edits.timedOut} over 30 s` : ''})`,
      `≤ ${TARGETS.p50S} s / ≤ ${TARGETS.p95S} s`,
      `${s(p50)} ${mark(p50 <= TARGETS.p50S * 1000)} / ${s(p95)} ${mark(p95 <= TARGETS.p95S * 1000)} (max ${s(Math.max(...edits.ms))})`,
    ],
  ];
  if (browser) {
    const { first: bf, reopen: br } = browser;
    const over = (peak, idle) => peak - idle;
    const allOver = over(bf.peak.allPss, bf.idleRss.allPss);
    rows.push(
      [
        'Chromium device (IndexedDB, OPFS vault): first sync',
        '—',
        `${s(bf.ms)} (${count(bf.files)} files, ${count(bf.requests)} requests; Chromium's CPU ${bf.cpuSeconds.toFixed(1)} s)`,
      ],
      [
        'Chromium device: peak memory above idle during the first sync, all Chromium processes (PSS)',
        `≤ ${TARGETS.deviceMb} MB`,
        `${mb(allOver)} ${mark(allOver <= TARGETS.deviceMb * 2 ** 20)} (idle ${mb(bf.idleRss.allPss)})`,
      ],
      [
        '… of which the renderer (PSS) / the JS heap used',
        '—',
        `${mb(over(bf.peak.rendererPss, bf.idleRss.rendererPss))} / ${mb(over(bf.peak.heap, bf.idleHeap))} (idle ${mb(bf.idleRss.rendererPss)} / ${mb(bf.idleHeap)}; heap after a collection ${mb(bf.afterHeap)})`,
      ],
      [
        'the same peaks as RSS sums: all Chromium processes / the renderer',
        '—',
        `${mb(over(bf.peak.all, bf.idleRss.all))} / ${mb(over(bf.peak.renderer, bf.idleRss.renderer))} (idle ${mb(bf.idleRss.all)} / ${mb(bf.idleRss.renderer)})`,
      ],
      [
        'Chromium device opening with nothing changed, to "in sync" (IndexedDB read included)',
        `≤ ${TARGETS.openS} s`,
        `${s(br.ms)} ${mark(br.ms <= TARGETS.openS * 1000)} (${br.requests} request${br.requests === 1 ? '' : 's'}; Chromium's CPU ${br.cpuSeconds.toFixed(2)} s)`,
      ],
    );
  }
  rows.push(
    ['companion RSS: idle (vault journalled) before any device', '—', mb(results.companionIdle)],
    [
      'companion RSS: peak during the first sync / the second / the Chromium one',
      '—',
      `${mb(results.companionFirstPeak)} / ${mb(results.companionSecondPeak)} / ${browser ? mb(results.companionBrowserPeak) : '–'}`,
    ],
    [`companion RSS: ${quietSeconds} s after the last sync`, '—', mb(results.companionAfter)],
  );
  console.log(
    `\n| sync, ${count(noteCount)} generated notes | target | measured |\n| --- | --- | --- |\n` +
      rows.map((row) => `| ${row.join(' | ')} |`).join('\n'),
  );
  const kinds = Object.entries(first.kinds)
    .map(([kind, n]) => `${kind} ${count(n)}`)
    .join(', ');
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
  console.log(
    [
      '',
      `First sync requests: ${kinds} (${results.requestsPerFile.toFixed(2)} per file); peak ${count(first.peakPerMinute)} per minute, ${count(first.peakPerSecond)} per second.` +
        (browser
          ? ` Chromium: peak ${count(browser.first.peakPerMinute)} per minute; storage ${mb(browser.first.storageBytes)} (navigator.storage.estimate).`
          : ''),
      `The companion journalled and indexed the vault on its first start in ${results.journalS.toFixed(1)} s (keyword index only, CAIRN_EMBEDDINGS=none); the devices start after that.`,
      `${os.cpus().length} cores, load average ${load}; total run ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    ].join('\n'),
  );
}
