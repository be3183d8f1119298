import { isUnspacedScript, synonymsOf, tokenize } from '../../shared/search';
import { USE_LITE_MODEL } from '../embeddings/use-lite-model';
import type { RankedChunk } from './search-index';

/*
 * Whether a retrieved chunk is about the question at all, and how much (a relevance a client
 * can show). Fused scores are relative (the best result of any query scores 1), so answers and
 * clients need an absolute signal: how much of the question the chunk covers, and, with
 * vectors of a measured model, the cosine similarity to the question.
 *
 * Key terms: the question's terms do not count alike. "Reset my Windows password" over the
 * Obsidian help vault finds "password" and "reset" (Obsidian Publish) but not "windows": two
 * thirds of the words, yet not what was asked. Each term is weighted by its inverse document
 * frequency in the index (BM25's idf; a term no note contains gets the highest weight), and
 * coverage is the weighted share of the terms a chunk contains (title, aliases and headings
 * included). Without index statistics every term weighs the same.
 *
 * Cosine scales differ by model (a bag-of-words model gives unrelated texts 0.5 for shared
 * function words), so the cosine only counts for models whose scale was measured.
 *
 * The gate, measured with `npm run eval -- --answerable` (obsidian-help-en, USE-lite, top 5
 * hits; 45 answerable questions, 20 off-topic ones, 20 near misses; answered / declined /
 * declined):
 *
 *   before: plain coverage ≥ 0.67 or cosine ≥ 0.45            43/45   19/20    5/20
 *   key ≥ 0.6 or (cosine ≥ 0.45 and key ≥ 0.34)               40/45   19/20   12/20  ← default
 *   key ≥ 0.75 or (cosine ≥ 0.45 and key ≥ 0.5)               35/45   20/20   15/20
 *   key ≥ 0.6 alone (keyword-only)                            33/45   20/20   14/20
 *
 * A near miss answered with quotes about something else costs a user's trust more than a
 * decline costs them a search; the default trades 3 answerable questions for 7 near misses.
 */

export interface RelevanceThresholds {
  /** Minimum key-term coverage when no cosine gate applies (keyword-only, unmeasured model). */
  minTermCoverage: number;
  /** Key-term coverage that passes on its own when vectors are there too. */
  minTermCoverageWithVectors: number;
  /** Key-term coverage a chunk needs on top of a passing cosine (near misses share a topic). */
  minTermCoverageWithCosine: number;
  /** Minimum cosine similarity per embedding model id; models not listed: cosine is ignored. */
  minCosine: Readonly<Record<string, number>>;
}

export const RELEVANCE_THRESHOLDS: Readonly<RelevanceThresholds> = {
  minTermCoverage: 0.5,
  minTermCoverageWithVectors: 0.6,
  minTermCoverageWithCosine: 0.34,
  minCosine: { [USE_LITE_MODEL.id]: 0.45 },
};

/**
 * Cosine range that maps onto relevance 0..1 per model: the measured gate threshold is the
 * middle (0.5), a cosine as high as a near-duplicate's is 1.
 */
const COSINE_SCALE: Readonly<Record<string, { zero: number; one: number }>> = {
  [USE_LITE_MODEL.id]: { zero: 0.25, one: 0.65 },
};

/**
 * Weight of each query term from its chunk frequency in the index: BM25's idf,
 * ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every chunk weighs almost nothing and a term
 * in none weighs most.
 */
export function keyTermWeights(documentFrequencies: readonly number[], total: number): number[] {
  return documentFrequencies.map((df) =>
    Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5)),
  );
}

/**
 * Weighted share (0..1) of `terms` that occur in `text` at a word start (prefix match, like
 * FTS5's). `weights` default to 1 each.
 */
export function termCoverage(
  terms: readonly string[],
  text: string,
  weights?: readonly number[],
): number {
  if (terms.length === 0) return 0;
  const words = new Set(tokenize(text));
  let found = 0;
  let total = 0;
  terms.forEach((term, i) => {
    const weight = weights?.[i] ?? 1;
    total += weight;
    // A synonym stands for the term (synonyms.ts: "configuration" covers "settings").
    const forms = [term, ...synonymsOf(term)];
    const covered = [...words].some((word) =>
      forms.some(
        // A Chinese or Japanese term may sit inside a longer segmented word.
        (form) => word.startsWith(form) || (isUnspacedScript(form) && word.includes(form)),
      ),
    );
    if (covered) found += weight;
  });
  return total > 0 ? found / total : 0;
}

/** What a hit's relevance is judged on: the question's terms and, if known, their weights. */
export interface RelevanceQuery {
  terms: readonly string[];
  /** Key-term weights (keyTermWeights), parallel to `terms`. */
  weights?: readonly number[];
  /** The model whose vectors scored `hit.vectorScore`. */
  model?: string;
}

function haystack(hit: RankedChunk): string {
  const chunk = hit.chunk;
  return [chunk.title, ...chunk.aliases, ...chunk.headingPath, chunk.text].join('\n');
}

/** The hit's key-term coverage. */
export function hitCoverage(hit: RankedChunk, query: RelevanceQuery): number {
  return termCoverage(query.terms, haystack(hit), query.weights);
}

export function isRelevant(
  hit: RankedChunk,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): boolean {
  const minCosine = query.model === undefined ? undefined : thresholds.minCosine[query.model];
  const coverage = hitCoverage(hit, query);
  if (minCosine === undefined) return coverage >= thresholds.minTermCoverage;
  if (coverage >= thresholds.minTermCoverageWithVectors) return true;
  return (
    hit.vectorScore !== undefined &&
    hit.vectorScore >= minCosine &&
    coverage >= thresholds.minTermCoverageWithCosine
  );
}

/**
 * A relevance in 0..1 that means the same for every query (unlike the fused score): the
 * larger of the key-term coverage and the cosine rescaled for its model (COSINE_SCALE), and
 * halved when the hit fails the answer gate, so that 0.5 and above means "relevant enough to
 * quote" on every scale. See docs/search-quality.md.
 */
/** Whether `model`'s cosines have a measured scale, so relevance can judge hits by meaning. */
export function hasCosineScale(model: string): boolean {
  return COSINE_SCALE[model] !== undefined;
}

export function relevanceOf(
  hit: RankedChunk,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): number {
  const coverage = hitCoverage(hit, query);
  const scale = query.model === undefined ? undefined : COSINE_SCALE[query.model];
  const semantic =
    scale === undefined || hit.vectorScore === undefined
      ? 0
      : clamp01((hit.vectorScore - scale.zero) / (scale.one - scale.zero));
  const raw = Math.max(coverage, semantic);
  const passes = isRelevant(hit, query, thresholds);
  // Passing hits land in [0.5, 1], failing ones in [0, 0.5).
  return round3(passes ? 0.5 + raw / 2 : Math.min(0.499, raw / 2));
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
