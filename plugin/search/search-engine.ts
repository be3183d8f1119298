import { count, create, insert, remove, search as oramaSearch } from '@orama/orama';
import type { AnyOrama } from '@orama/orama';
import { toCitation } from '../../shared/search/citation';
import type { NoteChunk } from '../../shared/search/chunk';
import { dedupePerNote, fuseRankings, fuseScores } from '../../shared/search/fusion';
import type { Scored } from '../../shared/search/fusion';
import { normaliseQuery, STOP_WORDS } from '../../shared/search/tokenize';
import type { Embedder } from '../../shared/ports';
import { chunkFilter, docTypeOf, folderChain, normaliseTag, tagChain } from './filters';
import { FlatVectorIndex } from './flat-vector-index';
import { linearTimeIndex } from './orama-index-component';
import type { SearchHit, SearchMode, VaultSearchOptions } from './vault-search';

/*
 * The in-vault index: Orama over chunks (DESIGN §3), tuned for natural-language questions, plus
 * exact vector similarity (FlatVectorIndex) when an embedder is active, fused by rank. Pure: no Obsidian, no storage;
 * the indexer feeds it and the store persists what it needs to rebuild it.
 */

export interface SearchEngineOptions {
  /** The active embedding provider; absent or null = keyword only. */
  embedder?: Embedder | null;
  /** How keyword and vector rankings combine (default `rrf`). */
  fusion?: 'rrf' | 'weighted';
  /** Per-list weights for [keyword, vector] (default [1, 1]). */
  weights?: readonly [number, number];
  /** Apply Orama's English stemmer (default false: it lowered nDCG@10 on the eval). */
  stemming?: boolean;
  /** Field boosts (defaults in BOOSTS); for tuning with the eval. */
  boosts?: Partial<Record<keyof typeof BOOSTS, number>>;
  /** One-edit typo tolerance on long words (default true). */
  typoTolerance?: boolean;
  /** Orama's BM25 parameters (default RELEVANCE). */
  relevance?: { k?: number; b?: number; d?: number };
  /** Chunks considered from each ranking before fusion (default 60). */
  candidates?: number;
  /**
   * Called when the query could not be embedded (provider down, wrong size); that search then
   * answers by keyword alone, its hits marked `keyword`.
   */
  onVectorError?: (error: Error) => void;
}

export interface SearchEngine {
  /** Model of the vectors this index holds; undefined when keyword only. */
  readonly model: Embedder['model'] | undefined;
  readonly mode: SearchMode;
  /** Chunks indexed. */
  readonly size: number;
  /** Notes indexed. */
  readonly noteCount: number;
  /**
   * Replaces every chunk of `path` with `chunks`. `vectors` maps a chunk's `textHash` to its
   * embedding; chunks without one are keyword-only until `setVectors` gives them one.
   */
  upsertNote(path: string, chunks: readonly NoteChunk[], vectors?: VectorLookup): void;
  removeNote(path: string): void;
  /** Adds vectors for chunks indexed without them (after a background embedding pass). */
  setVectors(path: string, vectors: VectorLookup): void;
  hasNote(path: string): boolean;
  /** Text hashes of `path`'s chunks that have no vector yet. */
  chunksWithoutVectors(path: string): NoteChunk[];
  search(query: string, options?: VaultSearchOptions): Promise<SearchHit[]>;
}

export type VectorLookup = (textHash: string) => Float32Array | undefined;

interface IndexedNote {
  chunks: NoteChunk[];
  /** chunkIds that have a vector in the vector index. */
  withVector: Set<string>;
}

/*
 * Tuned with the eval (scripts/eval, obsidian-help-en, 45 questions, nDCG@10): Orama's defaults
 * with title/heading boosts 3/2 and stemming scored 0.37. Each chunk repeats its note's title,
 * so boosting it over-rewards short chunks of loosely related notes; the body carries the
 * answer. Body ×3, headings ×0.5, BM25 k 0.9 / b 0.4 and no stemming scored 0.55 (stemming
 * cost 0.06 at the same settings, as STACK.md found).
 */
const BOOSTS = { title: 1, aliases: 1, fileName: 1, headings: 0.5, text: 3 } as const;
const RELEVANCE = { k: 0.9, b: 0.4, d: 0.5 } as const;
const SEARCHED = Object.keys(BOOSTS);
/** Typo tolerance only for longer words: on short ones one edit makes a different word. */
const TOLERANCE_MIN_TERM_LENGTH = 5;
/** Words only: a number or code with one character changed is a different thing, not a typo. */
function allowsTypos(term: string): boolean {
  return term.length >= TOLERANCE_MIN_TERM_LENGTH && /^\p{L}+$/u.test(term);
}

/** Cosine floor for vector hits; kept low because models differ in scale and ranks are fused anyway. */
const VECTOR_SIMILARITY_FLOOR = 0.1;
const DEFAULT_LIMIT = 10;

export function createSearchEngine(options: SearchEngineOptions = {}): SearchEngine {
  const embedder = options.embedder ?? null;
  const candidates = options.candidates ?? 60;
  const weights = options.weights ?? [1, 1];
  const boosts = { ...BOOSTS, ...options.boosts };
  const typoTolerance = options.typoTolerance ?? true;
  const db: AnyOrama = create({
    schema: {
      title: 'string',
      aliases: 'string',
      fileName: 'string',
      headings: 'string',
      text: 'string',
      folders: 'enum[]',
      tags: 'enum[]',
      type: 'enum',
    },
    components: {
      index: linearTimeIndex(),
      tokenizer: {
        language: 'english',
        stemming: options.stemming ?? false,
        stopWords: [...STOP_WORDS],
      },
    },
  });
  const vectorIndex = embedder ? new FlatVectorIndex(embedder.model.dims) : null;
  const notes = new Map<string, IndexedNote>();
  const chunkById = new Map<string, NoteChunk>();

  function insertChunk(chunk: NoteChunk, vector: Float32Array | undefined): boolean {
    synchronous(
      insert(db, {
        id: chunk.chunkId,
        title: chunk.title,
        aliases: chunk.aliases.join(' · '),
        fileName: fileNameOf(chunk.path),
        headings: chunk.headingPath.join(' · '),
        text: chunk.titleOnly ? '' : chunk.text,
        folders: folderChain(chunk.path),
        tags: tagChain(chunk.tags),
        type: docTypeOf(chunk),
      }),
    );
    chunkById.set(chunk.chunkId, chunk);
    return vector !== undefined && vectorIndex !== null && vectorIndex.set(chunk.chunkId, vector);
  }

  function removeNote(path: string): void {
    const note = notes.get(path);
    if (!note) return;
    for (const chunk of note.chunks) {
      synchronous(remove(db, chunk.chunkId));
      chunkById.delete(chunk.chunkId);
      vectorIndex?.delete(chunk.chunkId);
    }
    notes.delete(path);
  }

  async function vectorRanking(
    query: string,
    options: VaultSearchOptions,
    limit: number,
  ): Promise<Scored[]> {
    if (!embedder || !vectorIndex || vectorIndex.size === 0) return [];
    const [vector] = await embedder.embed([query]);
    if (!vector || vector.length !== embedder.model.dims) {
      throw new Error(
        `embedding: ${embedder.model.id} returned ${vector?.length ?? 0} dims for the query, expected ${embedder.model.dims}`,
      );
    }
    const accept = chunkFilter(options);
    return vectorIndex.search(vector, limit, VECTOR_SIMILARITY_FLOOR, (key) => {
      const chunk = chunkById.get(key);
      return chunk !== undefined && accept(chunk);
    });
  }

  return {
    get model() {
      return embedder?.model;
    },
    get mode(): SearchMode {
      return embedder ? 'hybrid' : 'keyword';
    },
    get size() {
      return count(db);
    },
    get noteCount() {
      return notes.size;
    },
    upsertNote(path, chunks, vectors) {
      removeNote(path);
      const withVector = new Set<string>();
      const seen = new Set<string>();
      const kept: NoteChunk[] = [];
      for (const chunk of chunks) {
        if (chunk.path !== path) {
          throw new Error(
            `search index: chunk ${chunk.chunkId} belongs to ${chunk.path}, not ${path}`,
          );
        }
        if (seen.has(chunk.chunkId)) continue;
        seen.add(chunk.chunkId);
        kept.push(chunk);
        if (insertChunk(chunk, vectors?.(chunk.textHash))) withVector.add(chunk.chunkId);
      }
      notes.set(path, { chunks: kept, withVector });
    },
    removeNote,
    setVectors(path, vectors) {
      const note = notes.get(path);
      if (!note || !vectorIndex) return;
      for (const chunk of note.chunks) {
        if (note.withVector.has(chunk.chunkId)) continue;
        const vector = vectors(chunk.textHash);
        if (vector && vectorIndex?.set(chunk.chunkId, vector)) note.withVector.add(chunk.chunkId);
      }
    },
    hasNote(path) {
      return notes.has(path);
    },
    chunksWithoutVectors(path) {
      const note = notes.get(path);
      if (!note || !embedder) return [];
      return note.chunks.filter((chunk) => !note.withVector.has(chunk.chunkId));
    },
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? DEFAULT_LIMIT;
      if (!Number.isInteger(limit) || limit < 1) {
        throw new RangeError(`search: limit must be a positive integer (got ${limit})`);
      }
      const { terms, text } = normaliseQuery(query);
      if (terms.length === 0 || notes.size === 0) return [];
      const where = whereOf(searchOptions);
      const pool = Math.max(candidates, limit * 3);
      const keywordSearch = (tolerance: number) =>
        oramaSearch(db, {
          term: text,
          properties: SEARCHED,
          boost: boosts,
          relevance: { ...RELEVANCE, ...options.relevance },
          threshold: 1,
          tolerance,
          limit: pool,
          ...(where ? { where } : {}),
        });
      // Typo tolerance walks the whole vocabulary (slow in a large vault), so it is the fallback
      // for queries that find less than a page of hits as typed.
      let keyword = await keywordSearch(0);
      if (typoTolerance && keyword.hits.length < limit && terms.every(allowsTypos)) {
        keyword = await keywordSearch(1);
      }
      const keywordRanking = keyword.hits.map((hit) => ({ key: hit.id, score: hit.score }));
      let vectorRankingList: Scored[] = [];
      try {
        vectorRankingList = await vectorRanking(query, searchOptions, pool);
      } catch (error) {
        options.onVectorError?.(error instanceof Error ? error : new Error(String(error)));
      }
      const fused =
        vectorRankingList.length === 0
          ? scaleByBest(keywordRanking)
          : options.fusion === 'weighted'
            ? fuseScores([keywordRanking, vectorRankingList], { weights })
            : fuseRankings([keywordRanking, vectorRankingList], { weights });
      const ranked = fused.flatMap((item) => {
        const chunk = chunkById.get(item.key);
        return chunk ? [{ chunk, score: item.score }] : [];
      });
      const mode: SearchMode = vectorRankingList.length > 0 ? 'hybrid' : 'keyword';
      return dedupePerNote(ranked, { noteOf: (hit) => hit.chunk.path })
        .slice(0, limit)
        .map(({ chunk, score }) => ({
          citation: toCitation(chunk, score, terms),
          chunkId: chunk.chunkId,
          terms,
          mode,
        }));
    },
  };
}

/** Orama's insert/remove are synchronous with its default components; a promise here is a bug. */
function synchronous<T>(result: T | Promise<T>): T {
  if (result instanceof Promise) throw new Error('search index: Orama went asynchronous');
  return result;
}

type Where = Record<string, unknown> | undefined;

/** Keyword only: BM25 scores divided by the best, so the top hit is 1 and the rest keep their spread. */
function scaleByBest(ranking: readonly Scored[]): Scored[] {
  const best = ranking[0]?.score ?? 0;
  return ranking.map((item) => ({ key: item.key, score: best > 0 ? item.score / best : 0 }));
}

function whereOf(options: VaultSearchOptions): Where {
  const where: Record<string, unknown> = {};
  const folder = options.folder?.trim().replace(/^\/+|\/+$/g, '');
  if (folder) where.folders = { containsAll: [folder] };
  const tag = options.tag === undefined ? '' : normaliseTag(options.tag);
  if (tag) where.tags = { containsAll: [tag] };
  if (options.type) where.type = { eq: options.type };
  return Object.keys(where).length > 0 ? where : undefined;
}

function fileNameOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.replace(/\.(md|pdf)$/i, '');
}
