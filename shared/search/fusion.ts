/*
 * Combining the keyword and the vector ranking into one list (docs/search.md: "reciprocal-rank
 * fusion or weighted scores: measure which"). Both are here so an eval can compare them on
 * the same inputs; both return scores in [0, 1], highest first.
 */

export type FusionMethod = 'rrf' | 'weighted';

/** How the keyword and the vector ranking combine: the one ranking policy of both engines. */
export interface FusionConfig {
  method: FusionMethod;
  /** RRF's damping constant (ignored by `weighted`). */
  rrfK: number;
  /** Weights of the keyword and the vector list. */
  keywordWeight: number;
  vectorWeight: number;
}

/**
 * The fusion both the plugin's engine (plugin/search/search-engine.ts) and the companion's
 * hybrid search (companion/search/hybrid-search.ts) use unless told otherwise. Weighted scores,
 * keywords first: measured with the search eval (docs/search-quality.md), scores keep how far
 * ahead a strong keyword match is, which ranks alone (RRF) forget.
 */
export const DEFAULT_FUSION: Readonly<FusionConfig> = Object.freeze({
  method: 'weighted',
  rrfK: 60,
  keywordWeight: 1,
  vectorWeight: 0.3,
});

/** One engine's result: a key (usually a chunk id) and that engine's score, higher is better. */
export interface Scored {
  key: string;
  score: number;
}

export interface FusionOptions {
  /** One weight per list (default 1 each); a weight of 0 ignores that list. */
  weights?: readonly number[];
}

export interface RrfOptions extends FusionOptions {
  /** RRF's damping constant; 60 is the value from Cormack et al. (2009). */
  k?: number;
}

/**
 * Reciprocal-rank fusion: each key scores Σ wᵢ / (k + rankᵢ) over the lists it appears in
 * (rank 1 = best; a key repeated in one list counts once, at its best rank). Scores are then
 * divided by the best possible, Σ wᵢ / (k + 1), so a key ranked first everywhere scores 1.
 * Only ranks matter: engines whose scores are not comparable (BM25 vs cosine) fuse fairly.
 */
export function fuseRankings(
  lists: ReadonlyArray<readonly Scored[]>,
  options: RrfOptions = {},
): Scored[] {
  const k = options.k ?? 60;
  if (!(k >= 0)) throw new RangeError(`fuseRankings: k must be ≥ 0 (got ${k})`);
  const weights = resolveWeights(lists.length, options.weights);
  const fused = new Map<string, Accumulator>();
  lists.forEach((list, i) => {
    const weight = weights[i]!;
    if (weight === 0) return;
    const seen = new Set<string>();
    rankOrder(list).forEach((item, index) => {
      if (seen.has(item.key)) return;
      seen.add(item.key);
      accumulate(fused, item.key, weight / (k + index + 1), index + 1);
    });
  });
  const best = weights.reduce((sum, weight) => sum + weight / (k + 1), 0);
  return finish(fused, best);
}

/**
 * Weighted scores: each list's scores min-max normalised to [0, 1] (a list whose scores are all
 * equal counts as 1 for each), then Σ wᵢ · normᵢ divided by Σ wᵢ. A key absent from a list gets
 * 0 from it. Sensitive to score distributions, which is what RRF avoids; kept for measurement.
 */
export function fuseScores(
  lists: ReadonlyArray<readonly Scored[]>,
  options: FusionOptions = {},
): Scored[] {
  const weights = resolveWeights(lists.length, options.weights);
  const fused = new Map<string, Accumulator>();
  lists.forEach((list, i) => {
    const weight = weights[i]!;
    if (weight === 0 || list.length === 0) return;
    const best = new Map<string, number>();
    for (const item of list) {
      if (!Number.isFinite(item.score)) continue;
      best.set(item.key, Math.max(best.get(item.key) ?? -Infinity, item.score));
    }
    let min = Infinity;
    let max = -Infinity;
    for (const score of best.values()) {
      min = Math.min(min, score);
      max = Math.max(max, score);
    }
    const range = max - min;
    const ranked = [...best.entries()].sort((a, b) => b[1] - a[1]);
    ranked.forEach(([key, score], index) => {
      accumulate(fused, key, weight * (range === 0 ? 1 : (score - min) / range), index + 1);
    });
  });
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return finish(fused, total);
}

interface Accumulator {
  score: number;
  /** Best rank in any list, for deterministic tie-breaking. */
  bestRank: number;
}

function accumulate(
  fused: Map<string, Accumulator>,
  key: string,
  score: number,
  rank: number,
): void {
  const entry = fused.get(key);
  if (entry === undefined) fused.set(key, { score, bestRank: rank });
  else {
    entry.score += score;
    entry.bestRank = Math.min(entry.bestRank, rank);
  }
}

function finish(fused: Map<string, Accumulator>, best: number): Scored[] {
  return [...fused.entries()]
    .sort(
      ([keyA, a], [keyB, b]) =>
        b.score - a.score || a.bestRank - b.bestRank || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0),
    )
    .map(([key, { score }]) => ({ key, score: best > 0 ? Math.min(1, score / best) : 0 }));
}

function resolveWeights(count: number, weights: readonly number[] | undefined): number[] {
  if (weights === undefined) return Array.from({ length: count }, () => 1);
  if (weights.length !== count) {
    throw new RangeError(`fusion: ${weights.length} weights for ${count} lists`);
  }
  for (const weight of weights) {
    if (!(weight >= 0) || !Number.isFinite(weight)) {
      throw new RangeError(`fusion: weights must be finite and ≥ 0 (got ${weight})`);
    }
  }
  return [...weights];
}

/** Highest score first; equal scores keep their input order. Non-finite scores go last. */
function rankOrder(list: readonly Scored[]): Scored[] {
  const value = (score: number) => (Number.isFinite(score) ? score : -Infinity);
  return [...list].sort((a, b) => value(b.score) - value(a.score));
}

export interface DedupeOptions<T> {
  /** Which note a result belongs to (path or note id). */
  noteOf: (result: T) => string;
  /** At most this many results per note (default 1). */
  maxPerNote?: number;
  /**
   * A further result of the same note is kept only if its score is at least this fraction of
   * that note's best (default 0.9): a second chunk when it is nearly as good, not a tail of them.
   */
  closeRatio?: number;
}

/**
 * Keeps each note's best result(s), in the input order (expected: best first), so one long
 * note cannot fill a page of results with its chunks.
 */
export function dedupePerNote<T extends { score: number }>(
  results: readonly T[],
  options: DedupeOptions<T>,
): T[] {
  const maxPerNote = options.maxPerNote ?? 1;
  const closeRatio = options.closeRatio ?? 0.9;
  const kept = new Map<string, { best: number; count: number }>();
  const out: T[] = [];
  for (const result of results) {
    const note = options.noteOf(result);
    const seen = kept.get(note);
    if (seen === undefined) {
      kept.set(note, { best: result.score, count: 1 });
      out.push(result);
    } else if (seen.count < maxPerNote && result.score >= seen.best * closeRatio) {
      seen.count++;
      out.push(result);
    }
  }
  return out;
}
