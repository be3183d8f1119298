#!/usr/bin/env node
// `node scripts/claims-eval.mjs`: the claim checker's table (issue 32): faithful claims flagged,
// inserted wrong numbers, names and dates caught. See scripts/eval/claims.ts.
import { resolve } from 'node:path';
import { bundleForNode, repo } from './bundle-for-node.mjs';

const bundle = await bundleForNode('cairn-claims-eval', ['scripts/eval/claims.ts']);
const { runClaimEval, claimEvalTable } = await bundle.load('claims');
const result = await runClaimEval({
  repo,
  corpora: process.env.CAIRN_CORPORA ?? resolve(repo, '../shared/corpora'),
});
console.log(
  `${result.cases} answers${result.skippedVaults.length ? ` (skipped: ${result.skippedVaults.join(', ')})` : ''}\n`,
);
console.log(claimEvalTable(result));
if (process.argv.includes('--misses')) {
  for (const miss of result.misses) console.log(`- ${miss.kind}: ${miss.claim} (${miss.why})`);
}
