import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Bm25Engine } from './bm25';
import { loadCranfield, loadVaultQuestions } from './datasets';
import type { Dataset } from './datasets';
import type { EvalEngine } from './engine';
import { MiniSearchEngine } from './minisearch-engine';
import { evaluate, formatTable } from './run';
import type { EngineScores } from './run';

/*
 * `npm run eval`: nDCG@10, Recall@10 and MRR@10 per engine per dataset.
 *
 *   node scripts/eval.mjs [--dataset cranfield|obsidian-help] [--engine <substring>] [--json]
 *   node scripts/eval.mjs --tune-plugin   (the plugin's keyword settings, scripts/eval/plugin-tune.ts)
 *
 * Engines are built lazily so `--engine bm25` does not load the embedding model.
 */

export interface EngineFactory {
  /** Matched by `--engine` (substring, case-insensitive). */
  key: string;
  create(): Promise<EvalEngine>;
}

export interface EvalOptions {
  repo: string;
  corpora: string;
  engines: readonly EngineFactory[];
  /** `--answerable`: measure the answer relevance gate instead of ranking. */
  answerability?: (dataset: Dataset) => Promise<string>;
  /** `--tune`: compare fusion settings on one index per dataset. */
  tune?: (dataset: Dataset) => Promise<string>;
}

export const BASELINE_ENGINES: readonly EngineFactory[] = [
  { key: 'bm25', create: async () => new Bm25Engine({ k1: 0.9, b: 0.4 }) },
  { key: 'minisearch', create: async () => new MiniSearchEngine() },
];

export async function runEval(argv: readonly string[], options: EvalOptions): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      dataset: { type: 'string' },
      engine: { type: 'string' },
      json: { type: 'boolean', default: false },
      answerable: { type: 'boolean', default: false },
      tune: { type: 'boolean', default: false },
    },
  });
  const datasets: Array<{ key: string; heldOut?: boolean; load: () => Dataset }> = [
    { key: 'cranfield', load: () => loadCranfield(resolve(options.corpora, 'cranfield')) },
    {
      key: 'obsidian-help',
      load: () =>
        loadVaultQuestions(
          'obsidian-help-en',
          resolve(options.corpora, 'obsidian-help-en'),
          resolve(options.repo, 'test/fixtures/eval/obsidian-help-questions.json'),
        ),
    },
    {
      // Held out from tuning the answer gate (issue #26): only `--answerable` reads them.
      key: 'obsidian-help-heldout',
      heldOut: true,
      load: () =>
        loadVaultQuestions(
          'obsidian-help-en (held out)',
          resolve(options.corpora, 'obsidian-help-en'),
          resolve(options.repo, 'test/fixtures/eval/obsidian-help-heldout-questions.json'),
        ),
    },
    {
      // A second held-out set (issue #26), committed before the names rule was revised.
      key: 'obsidian-help-gate-heldout',
      heldOut: true,
      load: () =>
        loadVaultQuestions(
          'obsidian-help-en (gate held out)',
          resolve(options.corpora, 'obsidian-help-en'),
          resolve(options.repo, 'test/fixtures/eval/obsidian-help-gate-heldout-questions.json'),
        ),
    },
    {
      key: 'sample-vault',
      heldOut: true,
      load: () =>
        loadVaultQuestions(
          'sample-vault (held out)',
          resolve(options.repo, 'companion/sample-vault'),
          resolve(options.repo, 'test/fixtures/eval/sample-vault-questions.json'),
        ),
    },
    {
      // Italian questions written for issue #13 (stemming, accents, a non-English vault).
      key: 'obsidian-help-it',
      load: () =>
        loadVaultQuestions(
          'obsidian-help-it',
          resolve(options.corpora, 'obsidian-help-it'),
          resolve(options.repo, 'test/fixtures/eval/obsidian-help-it-questions.json'),
        ),
    },
  ];
  // Held-out sets measure the answer gate only; ranking runs them when asked by name.
  const chosenDatasets = datasets.filter((dataset) =>
    values.dataset === undefined ? dataset.heldOut !== true : dataset.key === values.dataset,
  );
  if (chosenDatasets.length === 0) {
    throw new Error(
      `--dataset must be one of ${datasets.map((d) => d.key).join(', ')} (got "${values.dataset}")`,
    );
  }
  const wanted = values.engine?.toLowerCase();
  const chosenEngines = options.engines.filter(
    (engine) => wanted === undefined || engine.key.toLowerCase().includes(wanted),
  );
  if (chosenEngines.length === 0) {
    throw new Error(
      `--engine matches none of ${options.engines.map((e) => e.key).join(', ')} (got "${values.engine}")`,
    );
  }

  if (values.answerable) {
    if (!options.answerability) throw new Error('--answerable is not available here');
    // Every vault with question sets (Cranfield has no unanswerable questions).
    const vaults = datasets.filter(
      (d) => d.key !== 'cranfield' && (values.dataset === undefined || d.key === values.dataset),
    );
    for (const { load } of vaults) {
      const dataset = load();
      console.log(`${dataset.name}:\n${await options.answerability(dataset)}\n`);
    }
    return;
  }

  if (values.tune) {
    if (!options.tune) throw new Error('--tune is not available here');
    for (const { load } of chosenDatasets) console.log(await options.tune(load()));
    return;
  }

  const rows: EngineScores[] = [];
  for (const { load } of chosenDatasets) {
    const dataset = load();
    console.error(
      `${dataset.name}: ${dataset.documents.length} documents, ${dataset.queries.length} judged queries`,
    );
    for (const factory of chosenEngines) {
      const engine = await factory.create();
      try {
        console.error(`  ${engine.name}…`);
        rows.push(await evaluate(dataset, engine));
      } finally {
        await engine.close?.();
      }
    }
  }
  if (values.json) console.log(JSON.stringify(rows, null, 2));
  else console.log(formatTable(rows));
}
