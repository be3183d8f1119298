import type { FusionConfig } from '../../companion/search/hybrid-search';
import type { CompanionEngine } from './companion-engine';
import type { Dataset } from './datasets';
import { mean, ndcgAt, recallAt, reciprocalRankAt } from './metrics';
import { table } from './table';

/** Fusion settings compared by `npm run eval -- --tune`, on one index per dataset. */
export const FUSION_GRID: ReadonlyArray<Partial<FusionConfig>> = [
  { method: 'rrf', rrfK: 60, keywordWeight: 1, vectorWeight: 0 },
  ...[60, 20].flatMap((rrfK) =>
    [1, 0.7, 0.5, 0.3, 0.2].map((vectorWeight) => ({
      method: 'rrf' as const,
      rrfK,
      keywordWeight: 1,
      vectorWeight,
    })),
  ),
  ...[1, 0.5, 0.3, 0.2, 0.1].map((vectorWeight) => ({
    method: 'weighted' as const,
    keywordWeight: 1,
    vectorWeight,
  })),
];

export async function tuneFusion(dataset: Dataset, engine: CompanionEngine): Promise<string> {
  await engine.index(dataset.documents);
  const rows: string[][] = [];
  for (const fusion of FUSION_GRID) {
    engine.setFusion(fusion);
    const ndcg: number[] = [];
    const recall: number[] = [];
    const rr: number[] = [];
    for (const query of dataset.queries) {
      const ranked = await engine.search(query.text, 10);
      ndcg.push(ndcgAt(ranked, query.judgments, 10));
      recall.push(recallAt(ranked, query.judgments, 10));
      rr.push(reciprocalRankAt(ranked, query.judgments, 10));
    }
    rows.push([
      dataset.name,
      fusion.method === 'rrf' ? `rrf k=${fusion.rrfK}` : 'weighted',
      `${fusion.keywordWeight}:${fusion.vectorWeight}`,
      mean(ndcg).toFixed(3),
      mean(recall).toFixed(3),
      mean(rr).toFixed(3),
    ]);
  }
  return table(['dataset', 'fusion', 'kw:vec', 'nDCG@10', 'Recall@10', 'MRR@10'], rows);
}
