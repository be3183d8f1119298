import type { EvalDocument, EvalEngine } from './engine';
import type { Dataset } from './datasets';
import { mean, ndcgAt, recallAt, reciprocalRankAt } from './metrics';

export interface EngineScores {
  dataset: string;
  engine: string;
  queries: number;
  ndcg10: number;
  recall10: number;
  mrr10: number;
  /** Mean wall time per query, milliseconds (indexing excluded). */
  msPerQuery: number;
  indexSeconds: number;
  /** Per query nDCG@10, in dataset order, for paired comparisons. */
  perQuery: number[];
}

/** Indexes the dataset into the engine, runs every query, and averages the metrics. */
export async function evaluate(
  dataset: Dataset,
  engine: EvalEngine,
  documents: readonly EvalDocument[] = dataset.documents,
): Promise<EngineScores> {
  const indexStart = performance.now();
  await engine.index(documents);
  const indexSeconds = (performance.now() - indexStart) / 1000;
  const ndcg: number[] = [];
  const recall: number[] = [];
  const rr: number[] = [];
  const start = performance.now();
  for (const query of dataset.queries) {
    const ranked = await engine.search(query.text, 10);
    ndcg.push(ndcgAt(ranked, query.judgments, 10));
    recall.push(recallAt(ranked, query.judgments, 10));
    rr.push(reciprocalRankAt(ranked, query.judgments, 10));
  }
  const msPerQuery = (performance.now() - start) / Math.max(1, dataset.queries.length);
  return {
    dataset: dataset.name,
    engine: engine.name,
    queries: dataset.queries.length,
    ndcg10: mean(ndcg),
    recall10: mean(recall),
    mrr10: mean(rr),
    msPerQuery,
    indexSeconds,
    perQuery: ndcg,
  };
}

/** A plain-text table: one row per engine per dataset. */
export function formatTable(rows: readonly EngineScores[]): string {
  const header = [
    'dataset',
    'engine',
    'queries',
    'nDCG@10',
    'Recall@10',
    'MRR@10',
    'ms/query',
    'index s',
  ];
  const body = rows.map((row) => [
    row.dataset,
    row.engine,
    String(row.queries),
    row.ndcg10.toFixed(3),
    row.recall10.toFixed(3),
    row.mrr10.toFixed(3),
    row.msPerQuery.toFixed(1),
    row.indexSeconds.toFixed(1),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ');
  return [
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...body.map(line),
  ].join('\n');
}
