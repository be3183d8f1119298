import { tokenize } from '../../shared/search';
import type { SearchHit } from './hybrid-search';

/*
 * Whether a retrieved chunk is about the question at all. Fused scores are relative (the best
 * result of any query scores high), so answers need an absolute signal before quoting anything:
 * the share of the question's content terms the chunk contains (title and headings included),
 * or, with vectors, the cosine similarity to the question.
 *
 * Thresholds measured with `npm run eval -- --answerable` on obsidian-help-en (45 answerable
 * questions vs 20 about things the vault does not cover): see RELEVANCE_THRESHOLDS.
 */

export interface RelevanceThresholds {
  /** Minimum share of distinct query terms found in the chunk. */
  minTermCoverage: number;
  /** Minimum cosine similarity, when the hit came with a vector score. */
  minCosine: number;
}

export const RELEVANCE_THRESHOLDS: Readonly<RelevanceThresholds> = {
  minTermCoverage: 0.5,
  minCosine: 0.5,
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
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): boolean {
  const chunk = hit.chunk;
  const haystack = [chunk.title, ...chunk.aliases, ...chunk.headingPath, chunk.text].join('\n');
  if (termCoverage(terms, haystack) >= thresholds.minTermCoverage) return true;
  return hit.vectorScore !== undefined && hit.vectorScore >= thresholds.minCosine;
}
