#!/usr/bin/env node
// Start-up cost of the built plugin (issue #5: onload < 30 ms): the time to evaluate main.js
// (module-level code runs at require time, before onload) and the time `onload` takes, each
// sampled --runs times. Every sample is its own Node process, so each one pays what Obsidian
// pays when it enables the plugin: a cold compile (V8 caches compiled code per process) and
// cold JIT. main.js runs through the same `obsidian` shim and happy-dom as
// test/plugin/bundle-smoke.test.ts, with a data.json of an already-configured user.
//
// It builds nothing: run `npm run build` (or `node esbuild.config.mjs production`) first; without
// a main.js (and no --bundle) it says so and skips, so `npm run bench` still runs the other parts.
//
//   node scripts/bench/plugin-onload.mjs [--runs 30] [--bundle main.js]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    bundle: { type: 'string' },
    // Internal: one sample, in this process, with the shim bundled at this path.
    sample: { type: 'string' },
  },
});

const DEFAULT_BUNDLE = resolve(repo, 'main.js');

if (args.sample !== undefined) {
  await sampleOnce(resolve(args.bundle ?? DEFAULT_BUNDLE), args.sample);
} else {
  await runAll();
}

/** Loads main.js once through the shim, prints `{ requireMs, onloadMs }` as JSON, unloads. */
async function sampleOnce(bundlePath, shimPath) {
  const { createObsidianEnvironment } = await import(pathToFileURL(shimPath).href);
  const manifest = JSON.parse(readFileSync(resolve(repo, 'manifest.json'), 'utf8'));
  const env = createObsidianEnvironment(() =>
    Promise.reject(new Error('onload must not make requests')),
  );
  try {
    const app = env.api.createApp();
    app.pluginData.set(
      manifest.id,
      // As the settings tab saves it: every field, the zone included (checking it is part of onload).
      JSON.stringify({
        settingsVersion: 1,
        companion: { url: 'http://127.0.0.1:8787', token: 'bench-token-0123456789' },
        timezone: 'Europe/Berlin',
      }),
    );
    const source = readFileSync(bundlePath, 'utf8');
    // The bundle's `require('@codemirror/…')` resolves from the repository's node_modules
    // wherever main.js was built to. Obsidian has its CodeMirror loaded before any plugin,
    // so it is loaded here before the clock starts too.
    const moduleFile = join(repo, 'main.js');
    const requireFromRepo = createRequire(moduleFile);
    for (const name of ['@codemirror/state', '@codemirror/view']) requireFromRepo(name);

    const requireStarted = performance.now();
    const exports = env.loadBundle(source, moduleFile);
    const requireMs = performance.now() - requireStarted;

    const PluginClass = exports.default ?? exports;
    const plugin = new PluginClass(app, manifest);
    const onloadStarted = performance.now();
    await plugin.load();
    const onloadMs = performance.now() - onloadStarted;

    plugin.unload();
    process.stdout.write(`${JSON.stringify({ requireMs, onloadMs })}\n`);
  } finally {
    await env.close();
  }
}

async function runAll() {
  const runs = Number(args.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${args.runs}`);
  const bundlePath = resolve(args.bundle ?? DEFAULT_BUNDLE);
  if (!existsSync(bundlePath)) {
    const build = 'build the plugin first (npm run build, or node esbuild.config.mjs production)';
    if (args.bundle !== undefined)
      throw new Error(`--bundle ${bundlePath} does not exist: ${build}`);
    // `npm run bench` on a fresh clone: the other parts still run; this one says why it did not.
    console.warn(`!! plugin-onload SKIPPED: ${bundlePath} does not exist; ${build}.`);
    return;
  }

  const { bundleForNode } = await import('../bundle-for-node.mjs');
  const { outdir } = await bundleForNode('cairn-bench-plugin-onload', {
    'obsidian-shim': 'test/helpers/obsidian-shim/index.ts',
  });
  const shimPath = resolve(outdir, 'obsidian-shim.mjs');

  const samples = [];
  for (let run = 0; run < runs; run++) {
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--bundle', bundlePath, '--sample', shimPath],
      { encoding: 'utf8' },
    );
    if (child.status !== 0)
      throw new Error(`sample ${run + 1} exited with ${child.status}:\n${child.stderr}`);
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    samples.push(JSON.parse(line));
  }

  const rows = [
    ['require main.js', samples.map((sample) => sample.requireMs)],
    ['onload', samples.map((sample) => sample.onloadMs)],
    ['require + onload', samples.map((sample) => sample.requireMs + sample.onloadMs)],
  ].map(([label, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      phase: label,
      runs: sorted.length,
      p50ms: percentile(sorted, 50).toFixed(1),
      p95ms: percentile(sorted, 95).toFixed(1),
      minMs: sorted[0].toFixed(1),
      maxMs: sorted[sorted.length - 1].toFixed(1),
    };
  });

  const stat = statSync(bundlePath);
  const kb = (stat.size / 1024).toFixed(0);
  console.log(
    `main.js: ${bundlePath} (${kb} KB, built ${stat.mtime.toISOString()}), one fresh Node process per run`,
  );
  const columns = Object.keys(rows[0]);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const format = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join('  ');
  console.log(format(columns));
  console.log(format(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(format(columns.map((c) => row[c])));
  console.log('\nTarget: onload p50 < 30 ms (issue #5). Timings depend on machine load.');
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
