import { tokenize } from '../../shared/search';
import { USE_LITE_MODEL } from '../embeddings/use-lite-model';
import type { SearchHit } from './hybrid-search';

/*
 * Whether a retrieved chunk is about the question at all. Fused scores are relative (the best
 * result of any query scores high), so answers need an absolute signal before quoting anything:
 * the share of the question's content terms the chunk contains (title and headings included),
 * or, with vectors, the cosine similarity to the question.
 *
 * Cosine scales differ by model (a bag-of-words model gives unrelated texts 0.5 for shared
 * function words), so the cosine gate only applies to models whose threshold was measured;
 * for others, term coverage alone decides, with a lower bar.
 *
 * Measured with `npm run eval -- --answerable` (obsidian-help-en, companion hybrid with USE-lite
 * and the default fusion, top 5 hits; 45 answerable questions, 20 the vault does not cover):
 *
 *   coverage ≥ 0.67 or cosine ≥ 0.45   answers 43/45, declines 19/20   ← with USE-lite vectors
 *   coverage ≥ 0.67 or cosine ≥ 0.35   answers 45/45, declines 18/20
 *   coverage ≥ 0.50 or cosine ≥ 0.45   answers 45/45, declines 14/20
 *   coverage ≥ 0.50 alone              answers 43/45, declines 14/20   ← keyword-only
 *   coverage ≥ 0.67 alone              answers 22/45, declines 20/20
 *
 * (0.67 means more than two thirds: a three-term question needs all three.)
 */

export interface RelevanceThresholds {
  /** Minimum share of distinct query terms found in the chunk, when no cosine gate applies. */
  minTermCoverage: number;
  /** The same when the cosine gate applies too (it catches what coverage then misses). */
  minTermCoverageWithVectors: number;
  /** Minimum cosine similarity per embedding model id; models not listed: cosine is ignored. */
  minCosine: Readonly<Record<string, number>>;
}

export const RELEVANCE_THRESHOLDS: Readonly<RelevanceThresholds> = {
  minTermCoverage: 0.5,
  minTermCoverageWithVectors: 0.67,
  minCosine: { [USE_LITE_MODEL.id]: 0.45 },
};

/** Share (0..1) of `terms` that occur in `text` at a word start (prefix match, like FTS5's). */
export function termCoverage(terms: readonly string[], text: string): number {
  if (terms.length === 0) return 0;
  const words = new Set(tokenize(text));
  let found = 0;
  for (const term of terms) {
    for (const word of words) {
      if (word.startsWith(term)) {
        found++;
        break;
      }
    }
  }
  return found / terms.length;
}

export function isRelevant(
  hit: SearchHit,
  terms: readonly string[],
  /** The model whose vectors scored `hit.vectorScore`. */
  model: string | undefined,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): boolean {
  const chunk = hit.chunk;
  const haystack = [chunk.title, ...chunk.aliases, ...chunk.headingPath, chunk.text].join('\n');
  const minCosine = model === undefined ? undefined : thresholds.minCosine[model];
  const coverage = termCoverage(terms, haystack);
  if (minCosine === undefined) return coverage >= thresholds.minTermCoverage;
  if (coverage >= thresholds.minTermCoverageWithVectors) return true;
  return hit.vectorScore !== undefined && hit.vectorScore >= minCosine;
}
