#!/usr/bin/env node
// Memory of the companion once it is idle (issue #17: "a companion that idles small"): the built
// CLI in its own process indexes a generated vault (scripts/bench/generate-vault.ts) with the
// external Ollama provider, answered by test/fakes/ollama-server.ts (hash vectors of --dims), so
// no embedding worker counts: what is left is the index, the vectors held for search, the
// watcher and the server. Reported:
//   - peak RSS while indexing (sampled every second), RSS once every note is indexed and every
//     text embedded, and after --quiet-seconds of nothing (plus the RSS status reports);
//   - the same data restarted: RSS once ready (vectors loaded), then after the quiet time;
//   - process.memoryUsage() of the companion at each point (heap, external, arrayBuffers),
//     written every second by a preload (--require) the script puts next to the vault.
//
//   node scripts/bench/idle-memory.mjs [--notes 10000] [--quiet-seconds 60] [--dims 512]
//                                      [--cli path/to/dist/companion/cli.mjs]
//
// Linux only (RSS is read from /proc/<pid>/status). Builds dist/companion first (esbuild,
// --companion-only), unless --cli names a build to measure instead (another commit's, to
// compare: its own node_modules must resolve from there). The load average is printed: other work on the machine slows indexing,
// and a busier process collects garbage at other times, so compare runs at similar load.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleForNode } from '../bundle-for-node.mjs';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    'quiet-seconds': { type: 'string', default: '60' },
    dims: { type: 'string', default: '512' },
    cli: { type: 'string' },
  },
});
const notes = Number(args.notes);
const quietSeconds = Number(args['quiet-seconds']);
const dims = Number(args.dims);
if (!Number.isInteger(notes) || notes < 1) throw new Error(`--notes must be a positive integer`);
if (!(quietSeconds >= 0)) throw new Error(`--quiet-seconds must be a number of seconds ≥ 0`);
if (!Number.isInteger(dims) || dims < 1) throw new Error(`--dims must be a positive integer`);
if (process.platform !== 'linux') throw new Error('idle-memory reads /proc: Linux only');

if (args.cli === undefined) {
  const build = spawnSync(
    process.execPath,
    ['esbuild.config.mjs', 'production', '--companion-only'],
    { cwd: repo, encoding: 'utf8' },
  );
  if (build.status !== 0) throw new Error(`companion build failed:\n${build.stderr}`);
}
const cli = resolve(args.cli ?? join(repo, 'dist/companion/cli.mjs'));

const bundle = await bundleForNode('cairn-bench', {
  'idle-memory-vault': 'scripts/bench/generate-vault.ts',
  'idle-memory-ollama': 'test/fakes/ollama-server.ts',
});
const { generateVault } = await bundle.load('idle-memory-vault');
const { FakeOllamaServer } = await bundle.load('idle-memory-ollama');

const work = mkdtempSync(join(os.tmpdir(), 'cairn-idle-memory-'));
const vault = join(work, 'vault');
const memoryFile = join(work, 'memory.json');
const preload = join(work, 'memory-usage.cjs');
// Inside the companion: its own view of its memory, where RSS alone cannot say what it is.
writeFileSync(
  preload,
  `const { writeFileSync } = require('node:fs');
setInterval(() => writeFileSync(${JSON.stringify(memoryFile)}, JSON.stringify(process.memoryUsage())), 1000).unref();
`,
);
const token = 'b'.repeat(43);
const headers = { Authorization: `Bearer ${token}` };

try {
  const generated = generateVault(vault, notes);
  const ollama = await FakeOllamaServer.start({ dims, models: ['fake-embed'] });
  try {
    const first = await startCompanion(ollama.url);
    const indexed = await untilReady(first);
    const afterIndex = await sample(first);
    await sleep(quietSeconds * 1000);
    const quiet = await sample(first);
    const statusRss = (await status(first.port))?.process?.rss_bytes;
    await stop(first);

    const second = await startCompanion(ollama.url);
    const restarted = await untilReady(second);
    // A search, as a user's first one: the vectors are loaded by then either way.
    await fetch(`http://127.0.0.1:${second.port}/api/v1/search?q=alpha`, { headers });
    const afterRestart = await sample(second);
    await sleep(quietSeconds * 1000);
    const restartQuiet = await sample(second);
    await stop(second);

    const mb = (bytes) => (bytes === undefined ? '–' : `${Math.round(bytes / 2 ** 20)} MB`);
    const row = (what, point) => {
      const m = point.memory;
      return `| ${what} | ${mb(point.rss)} | ${mb(m?.heapTotal)} | ${mb(m?.heapUsed)} | ${mb(m?.external)} | ${mb(m?.arrayBuffers)} |`;
    };
    const load = os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(', ');
    console.log(
      `\nidle memory: ${generated.notes} notes (${mbText(generated.bytes)}), ${indexed.texts} texts × ${dims} dims, ` +
        `external provider (fake Ollama); ${os.cpus().length} cores, load average ${load}`,
    );
    console.log(
      `first index ready in ${indexed.seconds.toFixed(0)} s, restart ready in ${restarted.seconds.toFixed(1)} s\n`,
    );
    console.log('| companion | RSS | heapTotal | heapUsed | external | arrayBuffers |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(`| peak while indexing | ${mb(indexed.peak)} | | | | |`);
    console.log(row('after indexing', afterIndex));
    console.log(row(`after ${quietSeconds} s quiet`, quiet));
    console.log(`| status-reported rss then | ${mb(statusRss)} | | | | |`);
    console.log(row('after a restart (ready, one search)', afterRestart));
    console.log(row(`after a restart + ${quietSeconds} s quiet`, restartQuiet));
  } finally {
    await ollama.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function mbText(bytes) {
  return `${(bytes / 2 ** 20).toFixed(1)} MB of text`;
}

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

async function startCompanion(ollamaUrl) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [cli, '--vault', vault, '--data', join(work, 'data'), '--port', String(port)],
    {
      env: {
        ...process.env,
        NODE_OPTIONS: `--require ${preload}`,
        CAIRN_EMBEDDINGS: 'ollama',
        CAIRN_OLLAMA_URL: ollamaUrl,
        CAIRN_OLLAMA_EMBED_MODEL: 'fake-embed',
        CAIRN_TOKEN: token,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((done) => child.once('exit', done));
  return { child, port, exited, stderr: () => stderr, started: performance.now() };
}

async function status(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/status`, { headers });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined; // not listening yet
  }
}

function rssOf(child) {
  const text = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(text)[1]) * 1024;
}

/** Waits until every file is indexed and every text embedded; RSS peak meanwhile. */
async function untilReady(companion) {
  let peak = 0;
  for (;;) {
    if (companion.child.exitCode !== null) {
      throw new Error(`the companion exited (${companion.child.exitCode}):\n${companion.stderr()}`);
    }
    peak = Math.max(peak, rssOf(companion.child));
    const index = (await status(companion.port))?.index;
    if (index?.semantic?.state === 'ready' && index.pending === 0) {
      return {
        peak,
        texts: index.semantic.total,
        seconds: (performance.now() - companion.started) / 1000,
      };
    }
    if (performance.now() - companion.started > 30 * 60_000) {
      throw new Error(`not ready after 30 minutes: ${JSON.stringify(index?.semantic)}`);
    }
    await sleep(1000);
  }
}

/** RSS now, and the companion's own memoryUsage() from the preload's next write. */
async function sample(companion) {
  const rss = rssOf(companion.child);
  await sleep(1100);
  let memory;
  try {
    memory = JSON.parse(readFileSync(memoryFile, 'utf8'));
  } catch {
    memory = undefined; // the preload did not write yet
  }
  return { rss, memory };
}

async function stop(companion) {
  companion.child.kill('SIGTERM');
  await companion.exited;
}
