import { resolve } from 'node:path';
import { loadCranfield, loadVaultQuestions } from './datasets';
import { PluginEngine } from './plugin-engine';
import type { PluginEngineOptions } from './plugin-engine';
import { evaluate } from './run';

/**
 * Keyword settings of the plugin engine side by side (nDCG@10 on Cranfield and obsidian-help),
 * one index per setting: what the defaults in plugin/search/search-engine.ts were chosen from.
 */
export async function tunePluginKeyword(
  repo: string,
  corpora: string,
  variants: ReadonlyArray<Omit<PluginEngineOptions, 'embedder'>>,
): Promise<string> {
  const datasets = [
    loadCranfield(resolve(corpora, 'cranfield')),
    loadVaultQuestions(
      'obsidian-help-en',
      resolve(corpora, 'obsidian-help-en'),
      resolve(repo, 'test/fixtures/eval/obsidian-help-questions.json'),
    ),
  ];
  const lines = [`setting | ${datasets.map((d) => d.name).join(' | ')}`];
  for (const variant of variants) {
    const scores: string[] = [];
    for (const dataset of datasets) {
      const row = await evaluate(dataset, new PluginEngine(variant));
      scores.push(row.ndcg10.toFixed(3));
    }
    lines.push(`${variant.name} | ${scores.join(' | ')}`);
  }
  return lines.join('\n');
}
