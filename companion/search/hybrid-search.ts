import type { Embedder } from '../../shared/ports';
import type { SearchMode } from '../../shared/protocol/search';
import {
  dedupePerNote,
  detectLanguage,
  foldText,
  DEFAULT_FUSION,
  fuseRankings,
  fuseScores,
  normaliseQuery,
} from '../../shared/search';
import type { FusionConfig, FusionMethod, Scored } from '../../shared/search';
import { citeChunk } from './chunk-citation';
import {
  hasCosineScale,
  keyTermWeights,
  questionNames,
  relevanceOf,
} from '../../shared/search/answer-gate';
import type { RelevanceQuery } from '../../shared/search/answer-gate';
import type { IndexFilters, SearchIndex } from './search-index';
import { currentPathRules } from '../auth/path-rules';

/*
 * Hybrid retrieval (docs/search.md): FTS5 keyword candidates and vector candidates, fused into one
 * ranking, deduplicated per note, each result with its citation.
 *
 * Fusion was chosen with `npm run eval -- --tune` (scripts/eval/tune.ts: the real indexer and
 * SQLite, USE-lite vectors, one index per dataset), 2026-11-23, nDCG@10:
 *
 *                                   Cranfield (225 q)   obsidian-help-en (45 q)
 *   keyword only                         0.534                0.658
 *   RRF k=60, 1:1                        0.441                0.646
 *   RRF k=20, keyword 1 : vector 0.3     0.523                0.678
 *   weighted scores, 1:1                 0.463                0.662
 *   weighted scores, 1 : 0.3             0.535                0.685   ← default
 *   weighted scores, 1 : 0.1             0.539                0.664
 *
 * USE-lite is weak on Cranfield's technical abstracts (vector-only 0.264) and useful on
 * natural-language questions (vector-only 0.529); an equal say drags Cranfield below plain BM25
 * (0.511), while a keyword-led mix with a 0.3 vector weight improves both. Min-max weighted
 * scores keep how far ahead a strong keyword match is, which ranks alone (RRF) forget.
 */

/* The fusion policy is shared with the plugin's engine (shared/search/fusion.ts). */
export type { FusionConfig, FusionMethod };

/** Candidates each engine contributes before fusion: deep enough that fusion can reorder. */
export const DEFAULT_CANDIDATES = 50;

/** Why a search ran on keywords while the embedding model starts (again, after idling). */
const MODEL_LOADING = 'the embedding model is loading';
/**
 * How long a search waits for a loading (or parked) model to embed its query before it answers
 * with keywords only. Parked workers come back in a second or two; without the wait the same
 * query's hits changed with the workers' state (issue #26).
 */
export const DEFAULT_MODEL_WAIT_MS = 15_000;
/** The relevance of a keyword match whose words only match stemmed (see search()). */
const MIN_MATCH_RELEVANCE = 0.001;

export interface HybridSearchOptions {
  index: SearchIndex;
  /** The running embedder, if any; read on every search (it may start late or fail). */
  embedder?: () => Embedder | undefined;
  fusion?: Partial<FusionConfig>;
  candidates?: number;
  /** At most this many chunks of one note in the results (default 2), if nearly as good as its best. */
  maxPerNote?: number;
  /**
   * Folders left out of every search (Cairn's chats and digests, see search-exclusions.ts),
   * unless the request's own folder filter points inside one.
   */
  excludeFolders?: readonly string[];
  /** How the question is cased for the embedding model (see embedQuery); default `auto`. */
  queryCasing?: QueryCasing;
  /** Called once per search with its duration (query embedding included) and mode. */
  onTiming?: (seconds: number, mode: SearchMode) => void;
  /** Monotonic milliseconds; default `performance.now`. */
  now?: () => number;
  /** How long a search waits for a loading model (default {@link DEFAULT_MODEL_WAIT_MS}). */
  modelWaitMs?: number;
}

export interface SearchRequest {
  query: string;
  limit: number;
  /** Results to skip (pagination). */
  offset?: number;
  filters?: IndexFilters;
}

import type { RankedChunk } from './search-index';
export type { RankedChunk };

export interface SearchOutcome {
  hits: RankedChunk[];
  mode: SearchMode;
  /** The normalised query terms (what excerpts highlight). */
  terms: string[];
  /** More results exist beyond `offset + limit`. */
  hasMore: boolean;
  /** Why the search ran keyword-only, when it did. */
  keywordOnlyReason?: string;
  /** The embedding model of `vectorScore`s, in hybrid mode. */
  vectorModel?: string;
  /** Key-term weights of `terms` (shared/search/answer-gate.ts), when the index gives term statistics. */
  termWeights?: number[];
}

export class HybridSearch {
  private readonly fusion: FusionConfig;
  private readonly candidates: number;
  private readonly maxPerNote: number;
  private readonly now: () => number;

  constructor(private readonly options: HybridSearchOptions) {
    this.fusion = { ...DEFAULT_FUSION, ...options.fusion };
    this.candidates = options.candidates ?? DEFAULT_CANDIDATES;
    this.maxPerNote = options.maxPerNote ?? 2;
    this.now = options.now ?? (() => performance.now());
    if (!Number.isInteger(this.candidates) || this.candidates < 1) {
      throw new RangeError(`search candidates must be a positive integer (got ${this.candidates})`);
    }
  }

  /** Counts the notes an answer served cites (knowledge health's "often cited"). */
  recordCitations(paths: readonly string[]): void {
    this.options.index.recordCitations?.(paths);
  }

  /** Whether a search now would use vectors, and if not, why. */
  mode(): { mode: SearchMode; reason?: string } {
    const embedder = this.options.embedder?.();
    if (embedder === undefined) return { mode: 'keyword', reason: 'no embedding model is running' };
    const indexed = this.options.index.embeddingModel();
    if (indexed === null) {
      return { mode: 'keyword', reason: 'the index holds no vectors yet' };
    }
    if (indexed.id !== embedder.model.id || indexed.dims !== embedder.model.dims) {
      return {
        mode: 'keyword',
        reason: `the index holds ${indexed.id} vectors, the running model is ${embedder.model.id}`,
      };
    }
    if (embedder.ready === false) {
      return { mode: 'keyword', reason: MODEL_LOADING };
    }
    return { mode: 'hybrid' };
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const started = this.now();
    const offset = request.offset ?? 0;
    const filters = withinPathRules(
      withExclusions(request.filters ?? {}, this.options.excludeFolders ?? []),
    );
    const { terms, text } = normaliseQuery(request.query);
    // The depth never depends on the page asked for: min-max fusion normalises by each list's
    // lowest score, so a deeper list for a later page would re-rank the earlier ones (pages
    // used to repeat and skip results). Every page is a slice of the same ranking.
    const depth = this.candidates;

    const keywordHits = terms.length === 0 ? [] : this.options.index.keyword(text, filters, depth);
    let { mode, reason } = this.mode();
    let vectorHits: Array<{ chunkId: number; score: number }> = [];
    if (mode === 'hybrid' || reason === MODEL_LOADING) {
      const loading = reason === MODEL_LOADING;
      try {
        // A loading or parked model is waited for, within a bound: a query's hits must not
        // depend on whether the workers happen to be up.
        const embedded = embedQuery(
          this.options.embedder!()!,
          request.query,
          this.options.queryCasing ?? 'auto',
        );
        const vector = loading
          ? await withinBound(embedded, this.options.modelWaitMs ?? DEFAULT_MODEL_WAIT_MS)
          : await embedded;
        if (vector === TIMED_OUT) {
          embedded.catch(() => {
            // The model failing later is reported by the next search that tries.
          });
        } else {
          mode = 'hybrid';
          reason = undefined;
          vectorHits = vector ? this.options.index.vector(vector, filters, depth) : [];
        }
      } catch (error) {
        // The model failing is not the user's problem: keywords still answer, and say so.
        mode = 'keyword';
        reason = `the embedding model failed (${(error as Error).message})`;
      }
    }

    const toScored = (hits: ReadonlyArray<{ chunkId: number; score: number }>): Scored[] =>
      hits.map((hit) => ({ key: String(hit.chunkId), score: hit.score }));
    const lists =
      mode === 'hybrid' ? [toScored(keywordHits), toScored(vectorHits)] : [toScored(keywordHits)];
    const weights = mode === 'hybrid' ? [this.fusion.keywordWeight, this.fusion.vectorWeight] : [1];
    const fused =
      this.fusion.method === 'rrf'
        ? fuseRankings(lists, { k: this.fusion.rrfK, weights })
        : fuseScores(lists, { weights });

    const keywordScore = new Map(keywordHits.map((hit) => [hit.chunkId, hit.score]));
    const vectorScore = new Map(vectorHits.map((hit) => [hit.chunkId, hit.score]));
    const chunks = new Map(
      this.options.index.chunks(fused.map((item) => Number(item.key))).map((c) => [c.chunkId, c]),
    );
    const ranked = fused.flatMap((item) => {
      const chunk = chunks.get(Number(item.key));
      return chunk === undefined ? [] : [{ chunk, score: item.score }];
    });
    const deduped = dedupePerNote(ranked, {
      noteOf: (hit) => hit.chunk.path,
      maxPerNote: this.maxPerNote,
    });
    const stats = terms.length === 0 ? undefined : this.options.index.termStats?.(terms);
    const termWeights = stats && keyTermWeights(stats.documentFrequencies, stats.total);
    const vectorModel = mode === 'hybrid' ? this.options.embedder?.()?.model.id : undefined;
    const relevanceQuery: RelevanceQuery = {
      terms,
      names: questionNames(request.query, terms),
      ...(termWeights === undefined ? {} : { weights: termWeights }),
      ...(vectorModel === undefined ? {} : { model: vectorModel }),
    };
    // A hit with relevance 0 matches nothing of the query (a far vector neighbour): it is not a
    // result. Judged before paging, so pages stay slices of one list.
    const judged = deduped.map(({ chunk, score }): RankedChunk => {
      const keyword = keywordScore.get(chunk.chunkId);
      const vector = vectorScore.get(chunk.chunkId);
      const hit: RankedChunk = {
        chunk,
        score,
        relevance: 0,
        citation: citeChunk(chunk, score, terms),
        ...(keyword === undefined ? {} : { keywordScore: keyword }),
        ...(vector === undefined ? {} : { vectorScore: vector }),
      };
      hit.relevance = relevanceOf(hit, relevanceQuery);
      // The keyword index matched it by a stemmed form ("Ordnern" → "Ordner") that term
      // coverage, which reads words as written, does not see: a match, the least relevant.
      if (hit.relevance === 0 && keyword !== undefined) hit.relevance = MIN_MATCH_RELEVANCE;
      return hit;
    });
    // Without a measured cosine scale for the model (an uncalibrated Ollama model), a hit
    // found by meaning only cannot be judged: it stays.
    const judgesMeaning = vectorModel !== undefined && hasCosineScale(vectorModel);
    const unique = judged.filter(
      (hit) => hit.relevance > 0 || (!judgesMeaning && hit.vectorScore !== undefined),
    );
    const hits = unique.slice(offset, offset + request.limit);
    this.options.onTiming?.((this.now() - started) / 1000, mode);
    return {
      hits,
      mode,
      terms,
      hasMore: unique.length > offset + request.limit,
      ...(reason === undefined ? {} : { keywordOnlyReason: reason }),
      ...(vectorModel === undefined ? {} : { vectorModel }),
      ...(termWeights === undefined ? {} : { termWeights }),
    };
  }
}

/**
 * `filters` limited to the calling token's folders (auth/path-rules.ts): the one read filter of
 * path rules, so search, answers and every tool that searches see nothing outside them.
 */
export function withinPathRules(filters: IndexFilters): IndexFilters {
  const rules = currentPathRules();
  return rules === undefined ? filters : { ...filters, onlyFolders: rules };
}

/** `filters` plus the excluded folders the request did not explicitly ask to search in. */
export function withExclusions(
  filters: IndexFilters,
  excludeFolders: readonly string[],
): IndexFilters {
  const asked = filters.folder === undefined ? undefined : `${filters.folder}/`;
  const excluded = excludeFolders.filter((folder) => !asked?.startsWith(`${folder}/`));
  if (excluded.length === 0) return filters;
  return { ...filters, excludeFolders: [...(filters.excludeFolders ?? []), ...excluded] };
}

/**
 * How the question reaches the embedding model. The model is case-sensitive and the user's
 * casing must not change the answer (`how long can I stay in Portugal?` declined, `…portugal?`
 * answered), so the question is first folded (lower case, no accents, NFC): `folded` embeds
 * that. `folded+capitalised` also embeds it with every word capitalised (the form titles and
 * names take in notes) and averages the two: still independent of the user's casing.
 * `lower-case` only lower-cases (NFKC): accents reach the model. `auto` (the default):
 * `folded+capitalised` for a question detected as another language than English, else
 * `folded`. Measured (`npm run eval`, nDCG@10 hybrid): obsidian-help-en 0.688 folded vs 0.681
 * capitalised; obsidian-help-it 0.781 vs 0.817 (accents made no difference).
 */
export type QueryCasing = 'auto' | 'folded' | 'folded+capitalised' | 'lower-case';

async function embedQuery(
  embedder: Embedder,
  query: string,
  casing: QueryCasing,
): Promise<Float32Array | undefined> {
  if (casing === 'auto') {
    const language = detectLanguage(query);
    return embedQuery(
      embedder,
      query,
      language === undefined || language === 'en' ? 'folded' : 'folded+capitalised',
    );
  }
  if (casing === 'lower-case') {
    return (await embedder.embed([query.normalize('NFKC').toLowerCase()]))[0];
  }
  const folded = foldText(query);
  if (casing === 'folded') return (await embedder.embed([folded]))[0];
  const capitalised = folded.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1));
  const [a, b] = await embedder.embed([folded, capitalised]);
  if (a === undefined || b === undefined) return a ?? b;
  const sum = a.map((value, i) => value + b[i]!);
  const norm = Math.hypot(...sum) || 1;
  return sum.map((value) => value / norm);
}

const TIMED_OUT = Symbol('timed out');

/** `promise`'s value, or TIMED_OUT after `ms`; the timer is cleared either way. */
async function withinBound<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    handle = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(handle);
  }
}
