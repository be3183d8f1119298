#!/usr/bin/env node
// `npm run bench`: every benchmark, each printing its own table.
//
//   node scripts/bench.mjs [--only <part>]... [--notes 10000] [--queries 200]
//
// Parts, in order:
//   embeddings   scripts/bench-embeddings.mjs (USE-lite throughput), run as is;
//   <name>       every other area's scripts/bench/<name>.mjs (e.g. index, scheduler, sync), run as
//                is (with --notes when it has that option);
//                idle-memory builds dist/companion and reports its RSS and heap once idle at
//                10k notes and after a restart (takes ~5 minutes; its own flags: run it directly);
//                plugin-onload times the built main.js, so it wants `npm run build` first;
//                plugin-browser runs the plugin's search in headless Chromium (/usr/bin/chromium);
//   indexing     full index time and chunks/s on obsidian-help-en (keyword, then USE-lite
//                vectors) and on a generated vault of --notes notes;
//   restart      an indexed vault restarted: files re-read and texts re-embedded (must be 0),
//                time to ready;
//   edit         edit → searchable latency with the watcher running;
//   search       keyword/vector/hybrid latency p50/p95 at --notes notes, query embedding
//                excluded; RSS after each.
// The TypeScript parts (scripts/bench/*.ts) are bundled by bundle-for-node.mjs into
// node_modules/.cache/cairn-bench/ first.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleForNode } from './bundle-for-node.mjs';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const SCRIPTS = readdirSync(join(repo, 'scripts/bench'))
  .filter((name) => name.endsWith('.mjs'))
  .sort()
  .map((name) => name.slice(0, -'.mjs'.length));
const OWN = ['indexing', 'restart', 'edit', 'search'];
const ALL = ['embeddings', ...SCRIPTS, ...OWN];
const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    notes: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '200' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(
    `npm run bench -- [--only <part>]... [--notes 10000] [--queries 200]\n\nParts: ${ALL.join(', ')}.\nEach part prints its own table; see the header of scripts/bench.mjs for what each measures.`,
  );
  process.exit(0);
}
const parts = values.only ?? ALL;
for (const part of parts) {
  if (!ALL.includes(part))
    throw new Error(`--only must be one of ${ALL.join(', ')} (got "${part}")`);
}
const queries = Number(values.queries);
if (!Number.isInteger(queries) || queries < 1)
  throw new Error(`--queries must be a positive integer, got ${values.queries}`);
const notes = Number(values.notes);
if (!Number.isInteger(notes) || notes < 1)
  throw new Error(`--notes must be a positive integer, got ${values.notes}`);

/**
 * Runs another benchmark script as its own process, so its flags and memory stay its own. A
 * script that has a `--notes` option of its own gets this one's.
 */
function runScript(part, file) {
  console.log(`\n## ${part}`);
  const own = /\bnotes: \{ type: 'string'/.test(readFileSync(file, 'utf8'));
  const flags = own ? ['--notes', String(notes)] : [];
  const result = spawnSync(process.execPath, [file, ...flags], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${file} exited with ${result.status}`);
}

if (parts.includes('embeddings'))
  runScript('embeddings', join(repo, 'scripts/bench-embeddings.mjs'));
for (const script of SCRIPTS) {
  if (parts.includes(script)) runScript(script, join(repo, 'scripts/bench', `${script}.mjs`));
}

const rest = parts.filter((part) => OWN.includes(part));
if (rest.length > 0) {
  const bundle = await bundleForNode('cairn-bench', {
    main: 'scripts/bench/main.ts',
    'use-lite.worker': 'companion/embeddings/use-lite.worker.ts',
  });
  const { runParts } = await bundle.load('main');
  await runParts(rest, {
    corpora: process.env.CAIRN_CORPORA ?? resolve(repo, '../shared/corpora'),
    workerFile: join(bundle.outdir, 'use-lite.worker.mjs'),
    notes,
    queries,
  });
}
