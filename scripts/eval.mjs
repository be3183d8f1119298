#!/usr/bin/env node
// `npm run eval`: retrieval quality (nDCG@10, Recall@10, MRR@10) of every engine on Cranfield
// and on labelled questions over obsidian-help-en. See scripts/eval/main.ts for flags.
//
// The TypeScript (scripts/eval/, and the companion's indexer and search it exercises) is bundled
// with esbuild into node_modules/.cache/cairn-eval/ first, so this runs without a full build and
// measures exactly the code in the repository.
import esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../..');
const outdir = join(repo, 'node_modules/.cache/cairn-eval');
mkdirSync(outdir, { recursive: true });
await esbuild.build({
  entryPoints: [
    join(repo, 'scripts/eval/cli.ts'),
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
const { main } = await import(pathToFileURL(join(outdir, 'cli.mjs')).href);
await main(process.argv.slice(2), {
  repo,
  corpora: process.env.CAIRN_CORPORA ?? resolve(repo, '../shared/corpora'),
  workerFile: join(outdir, 'use-lite.worker.mjs'),
});
