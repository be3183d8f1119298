import { join } from 'node:path';
import type { Embedder } from '../../shared/ports';
import { WorkerEmbedder } from '../../companion/embeddings/worker-embedder';
import { answerability } from './answerability';
import { CompanionEngine } from './companion-engine';
import { PluginEngine } from './plugin-engine';
import { PLUGIN_KEYWORD_VARIANTS, pluginHybridVariants, tunePluginKeyword } from './plugin-tune';
import { BASELINE_ENGINES, runEval } from './main';
import type { EngineFactory } from './main';
import { tuneFusion } from './tune';
import { CachingEmbedder } from './vector-cache';
import type { QueryCasing } from '../../companion/search/hybrid-search';

export interface CliOptions {
  repo: string;
  corpora: string;
  /** The bundled USE-lite worker, for engines that embed. */
  workerFile: string;
}

const USAGE = `npm run eval -- [options]   retrieval quality: nDCG@10, Recall@10, MRR@10

  --dataset cranfield|obsidian-help|obsidian-help-it   one dataset (default: all but the
            |obsidian-help-heldout|sample-vault     held-out answer-gate sets)
            |obsidian-help-gate-heldout
  --engine <substring>                engines whose name contains it (bm25, minisearch,
                                      companion, plugin, keyword, hybrid, vector, ...)
  --json                              the scores as JSON instead of a table
  --answerable                        the answer gate: answerable questions answered,
                                      off-topic questions and near misses declined
                                      (companion, USE-lite; each vault with questions)
  --tune                              the companion's fusion settings side by side
  --tune-plugin                       the plugin's keyword settings side by side
  --tune-plugin-hybrid                the plugin's fusion settings side by side (USE-lite)

Corpora are read from ../shared/corpora, or from $CAIRN_CORPORA. With --answerable,
$CAIRN_EVAL_GATE_DUMP names a folder for each question's hits and gate signals (JSON).`;

/** Entry point bundled by scripts/eval.mjs. */
export async function main(argv: readonly string[], options: CliOptions): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  // `--tune-plugin`: the plugin engine's keyword settings side by side (no embedding model).
  if (argv.includes('--tune-plugin')) {
    console.log(await tunePluginKeyword(options.repo, options.corpora, PLUGIN_KEYWORD_VARIANTS));
    return;
  }
  let worker: WorkerEmbedder | null = null;
  let cached: Embedder | null = null;
  // One USE-lite worker pool for every engine that embeds, behind a vector cache.
  const useLite = async (): Promise<Embedder> => {
    if (cached) return cached;
    worker = await WorkerEmbedder.start({ workerFile: options.workerFile });
    cached = new CachingEmbedder(worker, join(options.repo, 'node_modules/.cache/cairn-eval'));
    return cached;
  };
  const engines: EngineFactory[] = [...BASELINE_ENGINES, ...companionEngines(useLite)];
  try {
    // `--tune-plugin-hybrid`: the plugin's fusion settings side by side (USE-lite vectors).
    if (argv.includes('--tune-plugin-hybrid')) {
      const variants = pluginHybridVariants(useLite);
      console.log(await tunePluginKeyword(options.repo, options.corpora, variants));
      return;
    }
    await runEval(argv, {
      repo: options.repo,
      corpora: options.corpora,
      engines,
      tune: async (dataset) => {
        const engine = new CompanionEngine({ name: 'companion hybrid', embedder: useLite });
        try {
          return await tuneFusion(dataset, engine);
        } finally {
          await engine.close();
        }
      },
      answerability: async (dataset) => {
        const engine = new CompanionEngine({
          name: 'companion hybrid (default fusion)',
          embedder: useLite,
        });
        try {
          // $CAIRN_EVAL_GATE_DUMP: a folder for each question's hits and signals, as JSON.
          const dumpFolder = process.env.CAIRN_EVAL_GATE_DUMP;
          const dumpFile =
            dumpFolder === undefined
              ? undefined
              : join(dumpFolder, `${dataset.name.replace(/[^\w-]+/g, '-')}.json`);
          return await answerability(dataset, engine, 5, dumpFile);
        } finally {
          await engine.close();
        }
      },
    });
  } finally {
    await (worker as WorkerEmbedder | null)?.close();
  }
}

export function companionEngines(useLite: () => Promise<Embedder>): EngineFactory[] {
  const engine = (
    key: string,
    name: string,
    hybrid: boolean,
    fusion = {},
    queryCasing?: QueryCasing,
  ): EngineFactory => ({
    key,
    create: async () =>
      new CompanionEngine({
        name,
        fusion,
        ...(hybrid ? { embedder: useLite } : {}),
        ...(queryCasing ? { queryCasing } : {}),
      }),
  });
  return [
    {
      key: 'plugin-keyword',
      create: async () => new PluginEngine({ name: 'plugin keyword-only (BM25F)' }),
    },
    {
      key: 'plugin-hybrid',
      create: async () =>
        new PluginEngine({ name: 'plugin hybrid (BM25F + USE-lite)', embedder: useLite }),
    },
    engine('companion-keyword', 'companion keyword-only (FTS5)', false),
    engine('companion-vector', 'companion vector-only (USE-lite)', true, { keywordWeight: 0 }),
    engine(
      'companion-vector-capitalised',
      'companion vector-only, query folded+capitalised',
      true,
      { keywordWeight: 0 },
      'folded+capitalised',
    ),
    engine(
      'companion-vector-lowercase',
      'companion vector-only, query lower-cased (accents kept)',
      true,
      { keywordWeight: 0 },
      'lower-case',
    ),
    engine('companion-hybrid', 'companion hybrid (default: weighted 1:0.3)', true),
    engine(
      'companion-hybrid-lowercase',
      'companion hybrid, query lower-cased (accents kept)',
      true,
      {},
      'lower-case',
    ),
    engine(
      'companion-hybrid-capitalised',
      'companion hybrid, query folded+capitalised',
      true,
      {},
      'folded+capitalised',
    ),
    engine('companion-hybrid-rrf', 'companion hybrid (RRF k=60, 1:1)', true, {
      method: 'rrf',
      rrfK: 60,
      keywordWeight: 1,
      vectorWeight: 1,
    }),
  ];
}
