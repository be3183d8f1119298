#!/usr/bin/env node
// `npm run eval`: retrieval quality (nDCG@10, Recall@10, MRR@10) of every engine on Cranfield
// and on labelled questions over obsidian-help-en. See scripts/eval/main.ts for flags.
//
// The TypeScript (scripts/eval/, and the companion's indexer and search it exercises) is bundled
// by bundle-for-node.mjs into node_modules/.cache/cairn-eval/ first, so this runs without a full
// build and measures exactly the code in the repository.
import { join, resolve } from 'node:path';
import { bundleForNode, repo } from './bundle-for-node.mjs';

const bundle = await bundleForNode('cairn-eval', [
  'scripts/eval/cli.ts',
  'companion/embeddings/use-lite.worker.ts',
]);
const { main } = await bundle.load('cli');
await main(process.argv.slice(2), {
  repo,
  corpora: process.env.CAIRN_CORPORA ?? resolve(repo, '../shared/corpora'),
  workerFile: join(bundle.outdir, 'use-lite.worker.mjs'),
});
