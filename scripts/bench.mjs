#!/usr/bin/env node
// `npm run bench`: every benchmark, each printing its own table.
//
//   node scripts/bench.mjs [--only embeddings|index|restart|edit|search] [--notes 10000]
//
// Parts: embeddings (scripts/bench-embeddings.mjs, run as is), index (full index time and
// chunks/s on obsidian-help-en and a generated vault), restart (files re-read and chunks
// re-embedded after a restart: must be 0), edit (edit → searchable latency with the watcher),
// search (keyword/vector/hybrid latency p50/p95 at scale, query embedding excluded), with RSS.
// The TypeScript is bundled with esbuild into node_modules/.cache/cairn-bench/ first.
import esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const ALL = ['embeddings', 'index', 'restart', 'edit', 'search'];
const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    notes: { type: 'string', default: '10000' },
  },
});
const parts = values.only ?? ALL;
for (const part of parts) {
  if (!ALL.includes(part))
    throw new Error(`--only must be one of ${ALL.join(', ')} (got "${part}")`);
}
const notes = Number(values.notes);
if (!Number.isInteger(notes) || notes < 1)
  throw new Error(`--notes must be a positive integer, got ${values.notes}`);

if (parts.includes('embeddings')) {
  console.log('\n## embeddings');
  const result = spawnSync(process.execPath, [join(repo, 'scripts/bench-embeddings.mjs')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`bench-embeddings.mjs exited with ${result.status}`);
}

const rest = parts.filter((part) => part !== 'embeddings');
if (rest.length > 0) {
  const outdir = join(repo, 'node_modules/.cache/cairn-bench');
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [
      join(repo, 'scripts/bench/main.ts'),
      join(repo, 'companion/embeddings/use-lite.worker.ts'),
    ],
    entryNames: '[name]',
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const { runParts } = await import(pathToFileURL(join(outdir, 'main.mjs')).href);
  await runParts(rest, {
    corpora: process.env.CAIRN_CORPORA ?? resolve(repo, '../shared/corpora'),
    workerFile: join(outdir, 'use-lite.worker.mjs'),
    notes,
  });
}
