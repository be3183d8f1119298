import { resolve } from 'node:path';
import type { Embedder } from '../../shared/ports';
import { loadCranfield, loadVaultQuestions } from './datasets';
import { PluginEngine } from './plugin-engine';
import type { PluginEngineOptions } from './plugin-engine';
import { evaluate } from './run';

/** The settings plugin/search/README.md reports, around the defaults. */
export const PLUGIN_KEYWORD_VARIANTS: ReadonlyArray<Omit<PluginEngineOptions, 'embedder'>> = [
  { name: 'defaults (k1 2, b 0.75, title ×2, body ×1, stemming)' },
  { name: 'no stemming', stemming: false },
  { name: 'no typo tolerance', typoTolerance: false },
  { name: 'k1 1.2, title ×1, body ×3', relevance: { k: 1.2 }, boosts: { title: 1, text: 3 } },
  { name: 'k1 1.2, title ×1', relevance: { k: 1.2 }, boosts: { title: 1 } },
  { name: 'k1 0.9, b 0.4', relevance: { k: 0.9, b: 0.4 } },
  { name: 'headings ×1', boosts: { headings: 1 } },
];

/** Fusion settings of the plugin's hybrid search, around the defaults (weighted 1:0.3). */
export function pluginHybridVariants(embedder: () => Promise<Embedder>): PluginEngineOptions[] {
  return [
    { name: 'hybrid: defaults', embedder },
    { name: 'hybrid: RRF 1:1', embedder, fusion: 'rrf', weights: [1, 1] },
    { name: 'hybrid: RRF 1:0.5', embedder, fusion: 'rrf', weights: [1, 0.5] },
    { name: 'hybrid: RRF 1:0.3', embedder, fusion: 'rrf', weights: [1, 0.3] },
    { name: 'hybrid: weighted 1:0.3', embedder, fusion: 'weighted', weights: [1, 0.3] },
    { name: 'hybrid: weighted 1:0.5', embedder, fusion: 'weighted', weights: [1, 0.5] },
  ];
}

/**
 * Keyword settings of the plugin engine side by side (nDCG@10 on Cranfield and obsidian-help),
 * one index per setting: what the defaults in plugin/search/search-engine.ts were chosen from.
 */
export async function tunePluginKeyword(
  repo: string,
  corpora: string,
  variants: readonly PluginEngineOptions[],
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
