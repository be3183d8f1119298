import { keyTermWeights, questionNames, relevanceOf } from '../../shared/search/answer-gate';
import { toCitation } from '../../shared/search/citation';
import type { Citation } from '../../shared/protocol/citation';
import type { NoteChunk } from '../../shared/search/chunk';
import {
  DEFAULT_FUSION,
  dedupePerNote,
  fuseRankings,
  fuseScores,
} from '../../shared/search/fusion';
import type { Scored } from '../../shared/search/fusion';
import { detectLanguage, hasStemmer } from '../../shared/search/language';
import type { Language } from '../../shared/search/language';
import { synonymsOf } from '../../shared/search/synonyms';
import { normaliseQuery } from '../../shared/search/tokenize';
import type { Embedder } from '../../shared/ports';
import { createAnalyzer } from './analyzer';
import type { Analyzer } from './analyzer';
import { Bm25fIndex } from './bm25f-index';
import type { ScoredDoc } from './bm25f-index';
import { chunkFilter, hasFilter } from './filters';
import { FlatVectorIndex } from './flat-vector-index';
import { ENGINE_SNAPSHOT_VERSION, joinList, splitList } from './engine-snapshot';
import type { EngineSnapshot } from './engine-snapshot';
import type { VaultSearchHit, SearchMode, VaultSearchOptions } from './vault-search';

/*
 * The in-vault index (docs/search.md): BM25F over chunks (Bm25fIndex, real term frequencies,
 * optional English stemming) tuned for natural-language questions, plus exact vector
 * similarity (FlatVectorIndex) when an embedder is active, fused by rank. Pure: no Obsidian,
 * no storage; the indexer feeds it, and it hands the indexer a snapshot to persist and takes
 * one back at start (so a restart re-tokenises nothing).
 */

export interface SearchEngineOptions {
  /** The active embedding provider; absent or null = keyword only. */
  embedder?: Embedder | null;
  /** How keyword and vector rankings combine (default DEFAULT_FUSION, shared/search/fusion.ts). */
  fusion?: 'rrf' | 'weighted';
  /** Per-list weights for [keyword, vector] (default DEFAULT_FUSION's). */
  weights?: readonly [number, number];
  /** English stemming (default DEFAULT_STEMMING; measured with the eval). */
  stemming?: boolean;
  /** Field weights (defaults in BOOSTS); for tuning with the eval. */
  boosts?: Partial<Record<FieldName, number>>;
  /** One-edit typo tolerance on long words when a query finds too little (default true). */
  typoTolerance?: boolean;
  /** BM25F parameters (default RELEVANCE). */
  relevance?: { k?: number; b?: number };
  /** Chunks considered from each ranking before fusion (default 60). */
  candidates?: number;
  /**
   * Vectors compared exactly after the sign-code prefilter (FlatVectorIndexOptions.rerank);
   * `Infinity` makes the vector side an exact scan (for tests and evals).
   */
  vectorRerank?: number;
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
  search(query: string, options?: VaultSearchOptions): Promise<VaultSearchHit[]>;
  /**
   * Chunks of other notes most like the note at `path` (the related-notes view), from what
   * the index already holds: no model call, so it runs synchronously in a few milliseconds.
   * Empty lists when the note is not indexed.
   */
  relatedChunks(path: string, limit: number): RelatedChunks;
  /** True when notes changed since the last snapshot was taken or loaded. */
  readonly changedSinceSnapshot: boolean;
  /** True when the loaded snapshot brought this embedder's vectors (none need reading). */
  readonly vectorsFromSnapshot: boolean;
  /**
   * Compacts the keyword index and returns what to persist, in steps (each `yield` is a point
   * to give the UI a turn; no upsert or removal may run until it returns). `contentHashOf`
   * names the file version each note was indexed from; a note without one is left out.
   */
  takeSnapshot(
    contentHashOf: (path: string) => string | undefined,
  ): Generator<void, EngineSnapshot>;
  /**
   * Replaces the whole index with a snapshot's. Its notes stay unconfirmed (searchable only
   * through `confirmUnconfirmedWith`'s hook) until `adoptNote` matches them with their stored
   * chunks; `finishRestore` drops the rest. Throws,
   * leaving the engine empty, when the snapshot is of another version or analyzer, or corrupt.
   */
  loadSnapshot(snapshot: unknown): void;
  /** `loadSnapshot` in steps (each `yield` a point to give the UI a turn). */
  loadSnapshotInSteps(snapshot: unknown): Generator<void, void>;
  /**
   * A snapshot's `vectors`, loaded after the rest of it (SearchStore.readSnapshotDeferringVectors)
   * and merged with what changed meanwhile: the snapshot's vector is kept for chunks still
   * unconfirmed or adopted, a note indexed anew keeps its own. Vectors of another model are
   * ignored; throws on other dimensions or corrupt data, changing nothing.
   */
  loadSnapshotVectorsInSteps(vectors: unknown): Generator<void, void>;
  /**
   * Binds a snapshot note to its chunks when the snapshot indexed the same file version with the
   * same chunks. Returns false (and changes nothing) otherwise: upsert the note instead.
   */
  adoptNote(
    path: string,
    contentHash: string,
    chunks: readonly NoteChunk[],
    vectors?: VectorLookup,
  ): boolean;
  /** Removes snapshot notes nobody adopted (deleted or excluded since); returns their paths. */
  finishRestore(): string[];
  /**
   * Lets a search answer from snapshot notes not adopted yet: when its candidates include some,
   * `confirm` is awaited with their paths (the indexer reads their stored chunks and adopts
   * them), then the search ranks again. Without one, unconfirmed notes are not searchable.
   * null removes it.
   */
  confirmUnconfirmedWith(confirm: UnconfirmedConfirmer | null): void;
}

/** Adopts (or upserts) the named snapshot notes from their stored chunks; see `search`. */
export type UnconfirmedConfirmer = (paths: readonly string[]) => Promise<void>;

/** One chunk of another note with one ranking's score (cosine, or BM25 scaled by the best). */
export interface RelatedChunk {
  chunkId: string;
  path: string;
  score: number;
}

export interface RelatedChunks {
  /** By the note's mean vector against every other chunk's; empty when keyword only. */
  vector: RelatedChunk[];
  /** By the note's most frequent content terms (title terms always in) as a query. */
  keyword: RelatedChunk[];
  /**
   * The citation of one of these chunks, its excerpt cut around the note's terms. Separate
   * because an excerpt costs a scan of the chunk's text: only the shown ones are cut.
   */
  cite(chunkId: string): Citation | undefined;
}

/** Content terms of a note used as its keyword query for related chunks. */
const RELATED_QUERY_TERMS = 24;

export type VectorLookup = (textHash: string) => Float32Array | undefined;

export type FieldName = 'title' | 'aliases' | 'fileName' | 'headings' | 'text';
const FIELDS: readonly FieldName[] = ['title', 'aliases', 'fileName', 'headings', 'text'];
const TEXT_FIELD = FIELDS.indexOf('text');

interface IndexedNote {
  chunks: NoteChunk[];
  /** Keyword-index doc id of each chunk, in the same order. */
  docs: number[];
  /** chunkIds that have a vector in the vector index. */
  withVector: Set<string>;
  /** True when its chunks are the snapshot's (adopted), so the snapshot's vectors fit them. */
  adopted: boolean;
}

/** A snapshot note not yet adopted: its docs are the snapshot's, consecutive from `firstDoc`. */
interface UnconfirmedNote {
  contentHash: string;
  firstDoc: number;
  docCount: number;
}

/*
 * Tuned with the eval (scripts/eval/plugin-tune.ts, keyword only, nDCG@10 Cranfield /
 * obsidian-help-en). BM25F with real term frequencies at k1 1.2, b 0.75, body ×3: 0.497 / 0.612
 * (Orama's per-field BM25 with tf = 1/length scored 0.410 / 0.55). The body weighted like the
 * title: 0.530 / 0.655 (×3 made a long body's repeats outweigh a title match). k1 2 and title
 * ×2: 0.541 / 0.666. Without stemming: −0.015 on both, so stemming is on (it lowered Orama's
 * scores because Orama stemmed without real term frequencies).
 */
const BOOSTS: Record<FieldName, number> = {
  title: 2,
  aliases: 1,
  fileName: 1,
  headings: 0.5,
  text: 1,
};
const RELEVANCE = { k: 2, b: 0.75 } as const;
const DEFAULT_STEMMING = true;
/*
 * Hybrid (USE-lite vectors, `--tune-plugin-hybrid`, nDCG@10 Cranfield / obsidian-help): RRF 1:1
 * 0.423 / 0.662 (below keyword alone: 0.541 / 0.666), RRF 1:0.3 0.497 / 0.681, min-max
 * weighted 1:0.3 0.542 / 0.678, 1:0.5 0.521 / 0.678. The companion chose weighted 1:0.3 too.
 */
/** Typo tolerance only for longer words: on short ones one edit makes a different word. */
const TOLERANCE_MIN_TERM_LENGTH = 5;
/** A last query word not in the vocabulary is taken as a prefix (typing), from this length. */
const PREFIX_MIN_LENGTH = 3;
/** Words only: a number or code with one character changed is a different thing, not a typo. */
function allowsTypos(term: string): boolean {
  return term.length >= TOLERANCE_MIN_TERM_LENGTH && /^\p{L}+$/u.test(term);
}

/** Cosine floor for vector hits; kept low because models differ in scale and ranks are fused anyway. */
const VECTOR_SIMILARITY_FLOOR = 0.1;
const DEFAULT_LIMIT = 10;
/** Snapshot notes put in the note table per step of a load (10k notes: ~20 ms in one). */
const LOAD_NOTES_PER_STEP = 2500;
/**
 * Rounds of confirming unconfirmed candidates per search: each round's adoptions can let other
 * unconfirmed docs rise (a filter refused an adopted one), but never by much.
 */
const CONFIRM_ROUNDS = 3;

export function createSearchEngine(options: SearchEngineOptions = {}): SearchEngine {
  const embedder = options.embedder ?? null;
  const candidates = options.candidates ?? 60;
  const fusion = options.fusion ?? DEFAULT_FUSION.method;
  const weights = options.weights ?? [DEFAULT_FUSION.keywordWeight, DEFAULT_FUSION.vectorWeight];
  const boosts = { ...BOOSTS, ...options.boosts };
  const typoTolerance = options.typoTolerance ?? true;
  const analyzer: Analyzer = createAnalyzer({ stemming: options.stemming ?? DEFAULT_STEMMING });
  const params = {
    k1: options.relevance?.k ?? RELEVANCE.k,
    b: options.relevance?.b ?? RELEVANCE.b,
    weights: FIELDS.map((field) => boosts[field]),
  };
  let index = new Bm25fIndex(FIELDS.length);
  /** Keyword doc id → its chunk (undefined for removed or unconfirmed docs). */
  let chunkOfDoc: Array<NoteChunk | undefined> = [];
  const vectorOptions = options.vectorRerank === undefined ? {} : { rerank: options.vectorRerank };
  let vectorIndex = embedder ? new FlatVectorIndex(embedder.model.dims, vectorOptions) : null;
  let vectorsFromSnapshot = false;
  const notes = new Map<string, IndexedNote>();
  const chunkById = new Map<string, NoteChunk>();
  let unconfirmed = new Map<string, UnconfirmedNote>();
  /** Each unconfirmed doc's note path, for searches before adoption. */
  let unconfirmedOfDoc: Array<string | undefined> = [];
  /** The snapshot's chunk id of each doc (valid while the doc is unconfirmed). */
  let snapshotChunkIds: readonly string[] = [];
  /** Built with the snapshot's vectors (vector hits name chunks, not docs). */
  let unconfirmedOfChunk = new Map<string, string>();
  let confirmUnconfirmed: UnconfirmedConfirmer | null = null;
  let changed = false;
  /** Chunks indexed this session per detected stemmed language (not English), and in all. */
  const languageChunks = new Map<Language, number>();
  let analysedChunks = 0;
  /** The vault's other languages: at least a tenth of its chunks (stray detections are noise). */
  const vaultLanguages = (): Language[] =>
    [...languageChunks].filter(([, n]) => n * 10 >= analysedChunks).map(([language]) => language);

  function fieldTerms(chunk: NoteChunk): string[][] {
    // The chunk's language, from its own words (a note's chunks are usually long enough).
    const language = detectLanguage(`${chunk.title}\n${chunk.text}`);
    analysedChunks++;
    if (language !== undefined && language !== 'en' && hasStemmer(language)) {
      languageChunks.set(language, (languageChunks.get(language) ?? 0) + 1);
    }
    return [
      analyzer.terms(chunk.title, language),
      analyzer.terms(chunk.aliases.join(' · '), language),
      analyzer.terms(fileNameOf(chunk.path), language),
      analyzer.terms(chunk.headingPath.join(' · '), language),
      chunk.titleOnly ? [] : analyzer.terms(chunk.text, language),
    ];
  }

  function bind(doc: number, chunk: NoteChunk, vector: Float32Array | undefined): boolean {
    chunkOfDoc[doc] = chunk;
    chunkById.set(chunk.chunkId, chunk);
    if (vectorIndex === null) return false;
    // A snapshot's vector for an adopted chunk is the vector of this very text.
    if (vectorIndex.has(chunk.chunkId)) return true;
    return vector !== undefined && vectorIndex.set(chunk.chunkId, vector);
  }

  /** Forgets an unconfirmed note's lookups once it is adopted or removed. */
  /** An unconfirmed note's docs and (from the snapshot's table) their chunk ids. */
  function docsOf(pending: UnconfirmedNote): number[] {
    return Array.from({ length: pending.docCount }, (_, i) => pending.firstDoc + i);
  }

  function chunkIdsOf(pending: UnconfirmedNote): string[] {
    return snapshotChunkIds.slice(pending.firstDoc, pending.firstDoc + pending.docCount);
  }

  function settleUnconfirmed(path: string, pending: UnconfirmedNote): void {
    unconfirmed.delete(path);
    for (const doc of docsOf(pending)) unconfirmedOfDoc[doc] = undefined;
    if (unconfirmedOfChunk.size > 0) {
      for (const chunkId of chunkIdsOf(pending)) unconfirmedOfChunk.delete(chunkId);
    }
  }

  function removeNote(path: string): void {
    const pending = unconfirmed.get(path);
    if (pending) {
      for (const doc of docsOf(pending)) index.remove(doc);
      for (const chunkId of chunkIdsOf(pending)) vectorIndex?.delete(chunkId);
      settleUnconfirmed(path, pending);
      changed = true;
    }
    const note = notes.get(path);
    if (!note) return;
    for (const [i, chunk] of note.chunks.entries()) {
      index.remove(note.docs[i]!);
      chunkOfDoc[note.docs[i]!] = undefined;
      chunkById.delete(chunk.chunkId);
      vectorIndex?.delete(chunk.chunkId);
    }
    notes.delete(path);
    changed = true;
  }

  /**
   * The `pool` best docs by BM25F. With `unconfirmedFound`, docs of unconfirmed notes count too
   * (whether a filter accepts them is known only once they are adopted) and the notes of those
   * in the result are added to it; their keys are chunk ids not in `chunkById` yet.
   */
  function keywordRanking(
    groups: number[][],
    accept: (chunk: NoteChunk) => boolean,
    pool: number,
    unconfirmedFound?: Set<string>,
  ) {
    const scored = index.score(groups, params);
    const keyOf = (doc: number) =>
      chunkOfDoc[doc]?.chunkId ?? (unconfirmedFound ? snapshotChunkIds[doc] : undefined) ?? '';
    const best = topAccepted(
      scored,
      pool,
      (doc) => {
        const chunk = chunkOfDoc[doc];
        if (chunk) return accept(chunk);
        return unconfirmedFound !== undefined && unconfirmedOfDoc[doc] !== undefined;
      },
      keyOf,
    );
    return best.map((item) => {
      const path = unconfirmedFound && unconfirmedOfDoc[item.doc];
      if (path) unconfirmedFound.add(path);
      return { key: keyOf(item.doc), score: item.score };
    });
  }

  /** The query's vector, or undefined when there is nothing to compare it with yet. */
  async function embedQuery(query: string): Promise<Float32Array | undefined> {
    // A model still loading would hold the whole search up: answer by keyword until it is in.
    if (!embedder || embedder.ready === false || !vectorIndex || vectorIndex.size === 0) {
      return undefined;
    }
    const [vector] = await embedder.embed([query]);
    if (!vector || vector.length !== embedder.model.dims) {
      throw new Error(
        `embedding: ${embedder.model.id} returned ${vector?.length ?? 0} dims for the query, expected ${embedder.model.dims}`,
      );
    }
    return vector;
  }

  /** The `limit` nearest chunks; `unconfirmedFound` as in keywordRanking. */
  function vectorRanking(
    vector: Float32Array,
    accept: ((chunk: NoteChunk) => boolean) | undefined,
    limit: number,
    unconfirmedFound?: Set<string>,
  ): Scored[] {
    if (!vectorIndex) return [];
    // No filter, no question per key: after the restore every vector has its chunk
    // (finishRestore drops the rest), and hits are looked up in chunkById anyway.
    const ranking = vectorIndex.search(
      vector,
      limit,
      VECTOR_SIMILARITY_FLOOR,
      accept &&
        ((key) => {
          const chunk = chunkById.get(key);
          if (chunk) return accept(chunk);
          return unconfirmedFound !== undefined && unconfirmedOfChunk.has(key);
        }),
    );
    if (unconfirmedFound) {
      for (const item of ranking) {
        const path = unconfirmedOfChunk.get(item.key);
        if (path !== undefined) unconfirmedFound.add(path);
      }
    }
    return ranking;
  }

  /** Indexes the unconfirmed notes' chunk ids by chunk (for vector hits), in steps. */
  function* indexUnconfirmedChunks(): Generator<void, void> {
    unconfirmedOfChunk = new Map();
    let notesDone = 0;
    for (const [path, pending] of unconfirmed) {
      if (++notesDone % LOAD_NOTES_PER_STEP === 0) yield;
      for (let doc = pending.firstDoc; doc < pending.firstDoc + pending.docCount; doc++) {
        unconfirmedOfChunk.set(snapshotChunkIds[doc]!, path);
      }
    }
  }

  /** A snapshot's vector index; null when there is no embedder or it is another model's. */
  function* loadVectorsInSteps(stored: unknown): Generator<void, FlatVectorIndex | null> {
    if (typeof stored !== 'object' || stored === null) {
      throw new Error('snapshot vectors are not an object');
    }
    const vectors = stored as NonNullable<EngineSnapshot['vectors']>;
    // Vectors of another model (or of none) are simply not used; the store still has them.
    if (!embedder || vectors.model !== embedder.model.id) return null;
    if (vectors.dims !== embedder.model.dims) {
      throw new Error(
        `snapshot vectors have ${vectors.dims} dims, ${embedder.model.id} ${embedder.model.dims}`,
      );
    }
    return yield* FlatVectorIndex.loadInSteps(
      { ...vectors, keys: splitList(vectors.keys) },
      vectorOptions,
    );
  }

  /**
   * Makes a snapshot's vectors the vector index. Notes indexed since the snapshot was loaded
   * (not adopted) keep the vectors they have; the snapshot's hold only for chunks still as it
   * indexed them, and notes adopted meanwhile learn which of theirs have one.
   */
  function* adoptSnapshotVectors(loaded: FlatVectorIndex): Generator<void, void> {
    yield* indexUnconfirmedChunks();
    yield;
    loaded.retain((key) => {
      const chunk = chunkById.get(key);
      return chunk === undefined
        ? unconfirmedOfChunk.has(key)
        : notes.get(chunk.path)?.adopted === true;
    });
    yield;
    for (const note of notes.values()) {
      for (const { chunkId } of note.chunks) {
        if (note.adopted && loaded.has(chunkId)) {
          note.withVector.add(chunkId);
          continue;
        }
        const own = vectorIndex?.get(chunkId);
        if (own) loaded.set(chunkId, own);
      }
    }
    vectorIndex = loaded;
    vectorsFromSnapshot = true;
  }

  return {
    get model() {
      return embedder?.model;
    },
    get mode(): SearchMode {
      return embedder ? 'hybrid' : 'keyword';
    },
    get size() {
      return chunkById.size;
    },
    get noteCount() {
      return notes.size;
    },
    get changedSinceSnapshot() {
      return changed;
    },
    get vectorsFromSnapshot() {
      return vectorsFromSnapshot;
    },
    upsertNote(path, chunks, vectors) {
      removeNote(path);
      const withVector = new Set<string>();
      const seen = new Set<string>();
      const kept: NoteChunk[] = [];
      const docs: number[] = [];
      for (const chunk of chunks) {
        if (chunk.path !== path) {
          throw new Error(
            `search index: chunk ${chunk.chunkId} belongs to ${chunk.path}, not ${path}`,
          );
        }
        if (seen.has(chunk.chunkId)) continue;
        seen.add(chunk.chunkId);
        kept.push(chunk);
      }
      // Tokenise everything before touching the index, so a throw leaves it unchanged.
      const terms = kept.map(fieldTerms);
      for (const [i, chunk] of kept.entries()) {
        const doc = index.add(terms[i]!);
        docs.push(doc);
        if (bind(doc, chunk, vectors?.(chunk.textHash))) withVector.add(chunk.chunkId);
      }
      notes.set(path, { chunks: kept, docs, withVector, adopted: false });
      changed = true;
    },
    removeNote,
    setVectors(path, vectors) {
      const note = notes.get(path);
      if (!note || !vectorIndex) return;
      vectorIndex.reserve(chunkById.size);
      for (const chunk of note.chunks) {
        if (note.withVector.has(chunk.chunkId)) continue;
        if (vectorIndex.has(chunk.chunkId)) {
          note.withVector.add(chunk.chunkId);
          continue;
        }
        const vector = vectors(chunk.textHash);
        if (vector && vectorIndex.set(chunk.chunkId, vector)) note.withVector.add(chunk.chunkId);
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
      const { terms } = normaliseQuery(query);
      const searchable = notes.size > 0 || (unconfirmed.size > 0 && confirmUnconfirmed !== null);
      if (terms.length === 0 || !searchable) return [];
      const accept = chunkFilter(searchOptions);
      const pool = Math.max(candidates, limit * 3);
      let queryVector: Float32Array | undefined;
      try {
        queryVector = await embedQuery(query);
      } catch (error) {
        options.onVectorError?.(error instanceof Error ? error : new Error(String(error)));
      }
      const rank = (unconfirmedFound?: Set<string>) => {
        // Each word is looked up as English stems it (the default analysis), plus its stems in
        // the vault's other languages (a German note indexed `einstell` for "Einstellungen";
        // languages of a tenth of the chunks indexed in this session), plus its
        // synonyms (synonyms.ts: "settings" finds "configuration"). Only stems the vocabulary
        // holds count, all as one word. (Stemming an English question in every language a few
        // chunks were detected in, or in a misread language, cost nDCG on obsidian-help-en.)
        const words = queryWords(terms, analyzer, undefined);
        const others = vaultLanguages();
        const asked = detectLanguage(query);
        const languages = new Set([
          undefined,
          ...(asked !== undefined && others.includes(asked) ? [asked] : []),
          ...others,
        ]);
        const groups = words.map((word) => {
          const forms = [word.raw, ...synonymsOf(word.raw)];
          const ids = forms.flatMap((form) =>
            [...languages].flatMap((each) => index.termIds(analyzer.queryTerm(form, each))),
          );
          return [...new Set([...index.termIds(word.stem), ...ids])];
        });
        // A last word the vault does not know is probably still being typed.
        const last = words[words.length - 1]!;
        const lastGroup = groups[groups.length - 1]!;
        if (lastGroup.length === 0 && last.raw.length >= PREFIX_MIN_LENGTH) {
          lastGroup.push(...index.termIds(last.raw, 'prefix'));
        }
        let keyword = keywordRanking(groups, accept, pool, unconfirmedFound);
        // Typo tolerance scans the vocabulary, so it is the fallback for queries that find less
        // than a page of hits as typed.
        if (typoTolerance && keyword.length < limit && terms.every(allowsTypos)) {
          const tolerant = words.map(({ raw, stem }, i) => [
            ...new Set([
              ...groups[i]!,
              ...index.termIds(stem, 'typo'),
              ...(stem === raw ? [] : index.termIds(raw, 'typo')),
            ]),
          ]);
          keyword = keywordRanking(tolerant, accept, pool, unconfirmedFound);
        }
        const vector = queryVector
          ? vectorRanking(
              queryVector,
              hasFilter(searchOptions) ? accept : undefined,
              pool,
              unconfirmedFound,
            )
          : [];
        return { keyword, vector, groups };
      };
      /**
       * The answer gate's reading of the query (shared/search/answer-gate.ts): each term weighted
       * by its chunk frequency here (the most chunks one of its forms is in, in any field), the
       * names it writes, and the model whose cosines rank the vector hits.
       */
      const gateQuery = (groups: number[][], hybrid: boolean) => {
        const frequencies = groups.map((ids) =>
          Math.max(
            0,
            ...ids.flatMap((id) => FIELDS.map((_, field) => index.postingCount(id, field))),
          ),
        );
        return {
          terms,
          weights: keyTermWeights(frequencies, index.size),
          names: questionNames(query, terms),
          ...(hybrid && embedder ? { model: embedder.model.id } : {}),
        };
      };
      const answer = (
        keyword: Scored[],
        vector: Scored[],
        groups: number[][],
      ): VaultSearchHit[] => {
        const fused =
          vector.length === 0
            ? scaleByBest(keyword)
            : fusion === 'weighted'
              ? fuseScores([keyword, vector], { weights })
              : fuseRankings([keyword, vector], { k: DEFAULT_FUSION.rrfK, weights });
        const ranked = fused.flatMap((item) => {
          const chunk = chunkById.get(item.key);
          return chunk ? [{ chunk, score: item.score }] : [];
        });
        const mode: SearchMode = vector.length > 0 ? 'hybrid' : 'keyword';
        const cosine = new Map(vector.map((item) => [item.key, item.score]));
        const gate = gateQuery(groups, mode === 'hybrid');
        return dedupePerNote(ranked, { noteOf: (hit) => hit.chunk.path })
          .slice(0, limit)
          .map(({ chunk, score }) => {
            const vectorScore = cosine.get(chunk.chunkId);
            return {
              citation: toCitation(chunk, score, terms),
              chunkId: chunk.chunkId,
              terms,
              mode,
              relevance: relevanceOf(
                { chunk, ...(vectorScore === undefined ? {} : { vectorScore }) },
                gate,
              ),
            };
          });
      };
      // After a restart the snapshot's notes answer before the restore has read their chunks:
      // the ones among the candidates are confirmed (read and adopted), then the ranking runs
      // again, until no candidate is unconfirmed or the rounds run out (those are left out).
      for (let round = 0; ; round++) {
        const confirm = round < CONFIRM_ROUNDS && unconfirmed.size > 0 ? confirmUnconfirmed : null;
        const found = confirm ? new Set<string>() : undefined;
        const { keyword, vector, groups } = rank(found);
        const paths = found ? [...found] : [];
        if (paths.length === 0) return answer(keyword, vector, groups);
        try {
          await confirm!(paths);
        } catch {
          // The restore reads the same records and reports what fails; this search answers
          // from the notes confirmed so far.
          const strict = rank();
          return answer(strict.keyword, strict.vector, strict.groups);
        }
      }
    },
    relatedChunks(path, limit) {
      const note = notes.get(path);
      if (!note || note.chunks.length === 0)
        return { vector: [], keyword: [], cite: () => undefined };
      const other = (chunk: NoteChunk | undefined) => chunk !== undefined && chunk.path !== path;
      const found = (key: string, score: number): RelatedChunk => ({
        chunkId: key,
        path: chunkById.get(key)!.path,
        score,
      });
      // Keyword: the note's most telling content terms (tf × idf, as Lucene's More Like This
      // picks them), title terms always included. By count alone the picks were the vault's
      // commonest words, whose long postings were most of a switch's time and say little.
      const counts = new Map<string, number>();
      for (const chunk of note.chunks) {
        if (chunk.titleOnly) continue;
        for (const term of analyzer.terms(chunk.text))
          counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      const titleTerms = analyzer.terms(note.chunks[0]!.title);
      const picked = new Set(titleTerms);
      const docs = Math.max(index.size, 1);
      const weighed = [...counts].map(([term, count]) => {
        const [id] = index.termIds(term);
        const df = id === undefined ? 0 : index.postingCount(id, TEXT_FIELD);
        return { term, weight: df === 0 ? 0 : count * Math.log(1 + docs / df) };
      });
      weighed.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
      for (const { term } of weighed) {
        if (picked.size >= RELATED_QUERY_TERMS) break;
        picked.add(term);
      }
      const terms = [...picked];
      const groups = terms.map((term) => index.termIds(term)).filter((ids) => ids.length);
      const keyword = scaleByBest(keywordRanking(groups, (chunk) => other(chunk), limit)).map(
        (item) => found(item.key, item.score),
      );
      // Vector: the mean of the note's own unit vectors, no embedding call. Excerpts (cite) are
      // cut around the keyword terms for both, so the section line points at the shared subject.
      let vector: RelatedChunk[] = [];
      if (vectorIndex && embedder) {
        const mean = new Float32Array(embedder.model.dims);
        let count = 0;
        for (const chunk of note.chunks) {
          const own = vectorIndex.get(chunk.chunkId);
          if (!own) continue;
          for (let i = 0; i < mean.length; i++) mean[i] = mean[i]! + own[i]!;
          count++;
        }
        if (count > 0) {
          vector = vectorIndex
            .search(mean, limit, VECTOR_SIMILARITY_FLOOR, (key) => other(chunkById.get(key)))
            .map((item) => found(item.key, item.score));
        }
      }
      const cite = (chunkId: string) => {
        const chunk = chunkById.get(chunkId);
        return chunk && toCitation(chunk, 1, terms);
      };
      return { vector, keyword, cite };
    },
    *takeSnapshot(contentHashOf) {
      if (unconfirmed.size > 0) throw new Error('search index: snapshot before restore finished');
      const remap = yield* index.compact();
      // The compaction's last step renumbered the docs: chunkOfDoc and the notes' docs follow
      // in the same step (a search in between would cite the wrong chunks), in place.
      const remapped: Array<NoteChunk | undefined> = new Array<NoteChunk | undefined>(index.size);
      for (let old = 0; old < remap.length; old++) {
        const doc = remap[old]!;
        if (doc >= 0) remapped[doc] = chunkOfDoc[old];
      }
      chunkOfDoc = remapped;
      for (const note of notes.values()) {
        for (let i = 0; i < note.docs.length; i++) note.docs[i] = remap[note.docs[i]!]!;
      }
      yield;
      const saved = index.save();
      const paths: string[] = [];
      const hashes: string[] = [];
      const firstDocs: number[] = [];
      const docCounts: number[] = [];
      const chunkIds: string[] = new Array<string>(saved.docCount).fill('');
      let done = 0;
      for (const [path, note] of notes) {
        // Reads only: searches may run between these steps.
        if (++done % LOAD_NOTES_PER_STEP === 0) yield;
        const hash = contentHashOf(path);
        if (hash === undefined) continue;
        const first = note.docs[0] ?? 0;
        for (let i = 0; i < note.docs.length; i++) {
          if (note.docs[i] !== first + i) {
            throw new Error(`search index: the chunks of ${path} are not contiguous`);
          }
          chunkIds[first + i] = note.chunks[i]!.chunkId;
        }
        paths.push(path);
        hashes.push(hash);
        firstDocs.push(first);
        docCounts.push(note.docs.length);
      }
      yield;
      const noteTable = {
        paths: joinList(paths),
        contentHashes: joinList(hashes),
        firstDocs: Uint32Array.from(firstDocs),
        docCounts: Uint32Array.from(docCounts),
      };
      yield;
      const joinedChunkIds = joinList(chunkIds);
      changed = false;
      // Saving the vectors may copy them (tens of MB at 10k notes): a step of its own, and
      // their 40k keys' list another.
      yield;
      let vectors: EngineSnapshot['vectors'];
      if (vectorIndex && embedder) {
        const savedVectors = vectorIndex.save();
        yield;
        vectors = {
          model: embedder.model.id,
          dims: savedVectors.dims,
          keys: joinList(savedVectors.keys),
          data: savedVectors.data,
          ...(savedVectors.codes && savedVectors.coder
            ? { codes: savedVectors.codes, coder: savedVectors.coder }
            : {}),
        };
      }
      return {
        ...(vectors ? { vectors } : {}),
        version: ENGINE_SNAPSHOT_VERSION,
        analyzer: analyzer.id,
        index: saved,
        ...noteTable,
        chunkIds: joinedChunkIds,
      };
    },
    loadSnapshot(stored) {
      const steps = this.loadSnapshotInSteps(stored);
      while (!steps.next().done);
    },
    *loadSnapshotInSteps(stored) {
      for (const path of [...notes.keys(), ...unconfirmed.keys()]) removeNote(path);
      index = new Bm25fIndex(FIELDS.length);
      chunkOfDoc = [];
      unconfirmed = new Map();
      unconfirmedOfDoc = [];
      snapshotChunkIds = [];
      unconfirmedOfChunk = new Map();
      vectorIndex = embedder ? new FlatVectorIndex(embedder.model.dims, vectorOptions) : null;
      vectorsFromSnapshot = false;
      if (typeof stored !== 'object' || stored === null || !('index' in stored)) {
        throw new Error('snapshot is not an object with an index');
      }
      // Every field is checked below or by Bm25fIndex.load before it is trusted.
      const snapshot = stored as EngineSnapshot;
      if (snapshot.version !== ENGINE_SNAPSHOT_VERSION) {
        throw new Error(
          `snapshot version ${String(snapshot.version)}, this build reads ${ENGINE_SNAPSHOT_VERSION}`,
        );
      }
      if (snapshot.analyzer !== analyzer.id) {
        throw new Error(
          `snapshot analyzer ${String(snapshot.analyzer)}, this one is ${analyzer.id}`,
        );
      }
      const loaded = yield* Bm25fIndex.loadInSteps(snapshot.index);
      // The last field's check, the lengths copy and the note table below were one ~90 ms step.
      yield;
      const paths = splitList(snapshot.paths);
      const hashes = splitList(snapshot.contentHashes);
      const chunkIds = splitList(snapshot.chunkIds);
      const { firstDocs, docCounts } = snapshot;
      if (
        !(firstDocs instanceof Uint32Array) ||
        !(docCounts instanceof Uint32Array) ||
        hashes.length !== paths.length ||
        firstDocs.length !== paths.length ||
        docCounts.length !== paths.length ||
        chunkIds.length !== snapshot.index.docCount
      ) {
        throw new Error('snapshot note table does not match its index');
      }
      const pending = new Map<string, UnconfirmedNote>();
      const pendingOfDoc: Array<string | undefined> = new Array<string | undefined>(
        snapshot.index.docCount,
      );
      const owned = new Uint8Array(snapshot.index.docCount);
      for (const [i, path] of paths.entries()) {
        if (i > 0 && i % LOAD_NOTES_PER_STEP === 0) yield;
        const firstDoc = firstDocs[i]!;
        const docCount = docCounts[i]!;
        for (let doc = firstDoc; doc < firstDoc + docCount; doc++) {
          if (doc >= owned.length || owned[doc] === 1) {
            throw new Error(`snapshot note table: ${path} claims doc ${doc}`);
          }
          owned[doc] = 1;
          pendingOfDoc[doc] = path;
        }
        pending.set(path, { contentHash: hashes[i]!, firstDoc, docCount });
      }
      // Docs no note claims (a note saved without a content hash) are simply not searchable.
      for (let doc = 0; doc < owned.length; doc++) if (owned[doc] === 0) loaded.remove(doc);
      // The note table above and the vectors' key table below each take ~10–20 ms at 10k notes.
      yield;
      const loadedVectors =
        snapshot.vectors === undefined ? null : yield* loadVectorsInSteps(snapshot.vectors);
      index = loaded;
      unconfirmed = pending;
      unconfirmedOfDoc = pendingOfDoc;
      snapshotChunkIds = chunkIds;
      if (loadedVectors) yield* adoptSnapshotVectors(loadedVectors);
      changed = owned.includes(0);
    },
    *loadSnapshotVectorsInSteps(vectors) {
      const loadedVectors = yield* loadVectorsInSteps(vectors);
      if (loadedVectors) yield* adoptSnapshotVectors(loadedVectors);
    },
    adoptNote(path, contentHash, chunks, vectors) {
      const pending = unconfirmed.get(path);
      if (!pending || pending.contentHash !== contentHash) return false;
      const kept: NoteChunk[] = [];
      const seen = new Set<string>();
      for (const chunk of chunks) {
        if (seen.has(chunk.chunkId) || chunk.path !== path) continue;
        seen.add(chunk.chunkId);
        kept.push(chunk);
      }
      if (
        kept.length !== pending.docCount ||
        kept.some((chunk, i) => chunk.chunkId !== snapshotChunkIds[pending.firstDoc + i])
      ) {
        return false;
      }
      const docs = docsOf(pending);
      settleUnconfirmed(path, pending);
      const withVector = new Set<string>();
      for (const [i, chunk] of kept.entries()) {
        if (bind(docs[i]!, chunk, vectors?.(chunk.textHash))) withVector.add(chunk.chunkId);
      }
      notes.set(path, { chunks: kept, docs, withVector, adopted: true });
      return true;
    },
    finishRestore() {
      const dropped = [...unconfirmed.keys()];
      for (const path of dropped) removeNote(path);
      // Vectors of chunks the snapshot's note table did not name.
      vectorIndex?.retain((key) => chunkById.has(key));
      return dropped;
    },
    confirmUnconfirmedWith(confirm) {
      confirmUnconfirmed = confirm;
    },
  };
}

/**
 * The `limit` best documents passing `accept`, best first, in a small sorted window (the
 * candidates are not sorted as a whole). Equal scores are ordered by `keyOf`, so the ranking
 * does not depend on internal doc numbers (a snapshot load renumbers them).
 */
function topAccepted(
  scored: readonly ScoredDoc[],
  limit: number,
  accept: (doc: number) => boolean,
  keyOf: (doc: number) => string,
): ScoredDoc[] {
  const best: ScoredDoc[] = [];
  const before = (a: ScoredDoc, b: ScoredDoc) =>
    a.score > b.score || (a.score === b.score && keyOf(a.doc) < keyOf(b.doc));
  for (const item of scored) {
    if (best.length === limit && !before(item, best[best.length - 1]!)) continue;
    if (!accept(item.doc)) continue;
    let at = best.length;
    while (at > 0 && before(item, best[at - 1]!)) at--;
    best.splice(at, 0, item);
    if (best.length > limit) best.pop();
  }
  return best;
}

/** Each query word with its index term; words with the same index term count once. */
function queryWords(
  terms: readonly string[],
  analyzer: Analyzer,
  language: Language | undefined,
): Array<{ raw: string; stem: string }> {
  const byStem = new Map<string, string>();
  for (const raw of terms) {
    const stem = analyzer.queryTerm(raw, language);
    if (!byStem.has(stem)) byStem.set(stem, raw);
  }
  return [...byStem].map(([stem, raw]) => ({ raw, stem }));
}

/** Keyword only: BM25 scores divided by the best, so the top hit is 1 and the rest keep their spread. */
function scaleByBest(ranking: readonly Scored[]): Scored[] {
  const best = ranking[0]?.score ?? 0;
  return ranking.map((item) => ({ key: item.key, score: best > 0 ? item.score / best : 0 }));
}

function fileNameOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.replace(/\.(md|pdf)$/i, '');
}
