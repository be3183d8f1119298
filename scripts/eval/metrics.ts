/*
 * Ranking metrics for the retrieval eval (`npm run eval`). A run is a ranked list of document
 * ids, best first; judgments map a document id to a graded gain (> 0 relevant, absent = 0).
 */

/** Document id → graded gain; documents not listed are not relevant (gain 0). */
export type Judgments = ReadonlyMap<string, number>;

/**
 * nDCG@k with linear gains: DCG = Σᵢ gainᵢ / log₂(i + 1) over ranks i = 1..k, divided by the
 * DCG of the ideal ordering of all judged documents. A repeated id counts once, at its first
 * rank (an engine returning a chunk twice must not earn its gain twice). 0 when nothing is
 * relevant at all (such queries are left out of means by the caller).
 */
export function ndcgAt(ranked: readonly string[], judgments: Judgments, k: number): number {
  checkK(k);
  const ideal = [...judgments.values()].filter((gain) => gain > 0).sort((a, b) => b - a);
  const idealDcg = dcg(ideal.slice(0, k));
  if (idealDcg === 0) return 0;
  const gains = uniqueTop(ranked, k).map((id) => judgments.get(id) ?? 0);
  return dcg(gains) / idealDcg;
}

/** Share of the relevant documents (gain > 0) found in the top k; 0 when none is relevant. */
export function recallAt(ranked: readonly string[], judgments: Judgments, k: number): number {
  checkK(k);
  const relevant = [...judgments.entries()].filter(([, gain]) => gain > 0).length;
  if (relevant === 0) return 0;
  const found = uniqueTop(ranked, k).filter((id) => (judgments.get(id) ?? 0) > 0).length;
  return found / relevant;
}

/** 1 / rank of the first relevant document within the top k; 0 when there is none. */
export function reciprocalRankAt(
  ranked: readonly string[],
  judgments: Judgments,
  k: number,
): number {
  checkK(k);
  const top = uniqueTop(ranked, k);
  const first = top.findIndex((id) => (judgments.get(id) ?? 0) > 0);
  return first < 0 ? 0 : 1 / (first + 1);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function dcg(gains: readonly number[]): number {
  return gains.reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
}

function uniqueTop(ranked: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const top: string[] = [];
  for (const id of ranked) {
    if (top.length >= k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    top.push(id);
  }
  return top;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1)
    throw new RangeError(`k must be a positive integer (got ${k})`);
}
