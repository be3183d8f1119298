import type { KnowledgeHealth } from '../../shared/protocol/knowledge-health';
import type { Decision } from '../../shared/protocol/decisions';
import type { Citation } from '../../shared/protocol/citation';
import type { EmbeddingModel } from '../../shared/ports';
import type { DocumentType } from '../../shared/protocol/search';

/*
 * The read side of the vault index as search needs it: the contract with the indexer
 * (companion/search/index-queries.ts implements it structurally). Kept as search's own narrow
 * port so search and its tests depend on these four methods, not on SQLite.
 */

export interface IndexFilters {
  /** Vault-relative folder; matches files inside it at any depth. */
  folder?: string;
  /** Tag without `#`; nested tags match too. */
  tag?: string;
  type?: DocumentType;
  /** Inclusive bounds, ms since the epoch, on front-matter `created` or else the mtime. */
  from?: number;
  to?: number;
  /** Vault-relative folders whose files are left out, at any depth (Cairn's own output). */
  excludeFolders?: readonly string[];
  /** When set, only files inside one of these folders (the calling token's path rules). */
  onlyFolders?: readonly string[];
}

/** Ranked best first; score: negated BM25 (higher better) or cosine similarity. */
export interface ChunkHit {
  chunkId: number;
  score: number;
}

export interface IndexedChunk {
  chunkId: number;
  path: string;
  fileType: DocumentType;
  noteId?: string;
  title: string;
  aliases: string[];
  tags: string[];
  headingPath: string[];
  heading?: string;
  startLine?: number;
  endLine?: number;
  page?: number;
  text: string;
  mtimeMs: number;
  /** Front-matter `created`, when the note has a valid one. */
  createdMs?: number;
  /** Front-matter `updated`, when the note has a valid one. */
  updatedMs?: number;
  /** Hash of the chunk's text (the embedding cache key); absent in indexes without vectors. */
  textHash?: string;
}

export interface SearchIndex {
  keyword(query: string, filters: IndexFilters, limit: number): ChunkHit[];
  vector(queryVector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[];
  chunks(ids: readonly number[]): IndexedChunk[];
  embeddingModel(): EmbeddingModel | null;
  /**
   * How many chunks contain each term (as a word prefix, like keyword search), and how many
   * chunks there are: the key-term weights of the answer gate. Optional: without it, every
   * term weighs the same.
   */
  termStats?(terms: readonly string[]): { total: number; documentFrequencies: number[] };
  /**
   * Decisions found in notes (migration 012) matching the words of `query` (all, newest first,
   * when it has none), best first. Optional: indexes without it have no decisions.
   */
  decisions?(query: string, limit: number): Decision[];
  /**
   * What the related-notes route starts from for the note at `path`: its title and the mean of
   * its chunks' stored unit vectors of the queryable model (null when keyword only or none of
   * its chunks has one yet); undefined when the note is not indexed. Optional like `decisions`.
   */
  relatedSeed?(path: string): RelatedSeed | undefined;
  /** The knowledge health report at `now` (epoch ms); optional like `decisions`. */
  knowledgeHealth?(now: number): KnowledgeHealth;
  /** Counts one citation of each path in an answer served (knowledge health's "often cited"). */
  recordCitations?(paths: readonly string[]): void;
}

/** One ranked chunk as search answers it (hybrid-search.ts builds them, shared/search/answer-gate.ts reads them). */
export interface RankedChunk {
  chunk: IndexedChunk;
  /** Fused score in [0, 1], comparable within one response only. */
  score: number;
  citation: Citation;
  /**
   * Relevance in [0, 1] with the same meaning for every query (shared/search/answer-gate.ts relevanceOf):
   * 0.5 and above passes the answer gate.
   */
  relevance: number;
  /** The engines' own scores, for callers that need an absolute signal (answers). */
  keywordScore?: number;
  vectorScore?: number;
}

/** See `SearchIndex.relatedSeed`. */
export interface RelatedSeed {
  title: string;
  meanVector: Float32Array | null;
}
