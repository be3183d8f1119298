import type { EmbeddingModel } from '../../../shared/ports';
import { tokenize } from '../../../shared/search';
import type {
  ChunkHit,
  IndexFilters,
  IndexedChunk,
  SearchIndex,
} from '../../../companion/search/search-index';

/**
 * A small in-memory SearchIndex for unit tests of ranking logic that must control exactly what
 * each engine returns. Route tests use the real SQLite index instead.
 */
export class MemoryIndex implements SearchIndex {
  model: EmbeddingModel | null = null;
  /** Fixed vector results (chunk id, cosine), returned for any query vector. */
  vectorHits: ChunkHit[] = [];
  readonly keywordCalls: string[] = [];

  constructor(readonly rows: IndexedChunk[]) {}

  keyword(query: string, filters: IndexFilters, limit: number): ChunkHit[] {
    this.keywordCalls.push(query);
    const terms = tokenize(query);
    return this.rows
      .filter((row) => matches(row, filters))
      .map((row) => {
        const words = tokenize(`${row.title} ${row.text}`);
        const score = terms.reduce(
          (sum, term) => sum + words.filter((word) => word.startsWith(term)).length,
          0,
        );
        return { chunkId: row.chunkId, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.chunkId - b.chunkId)
      .slice(0, limit);
  }

  vector(_vector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[] {
    const allowed = new Set(this.rows.filter((row) => matches(row, filters)).map((r) => r.chunkId));
    return this.vectorHits.filter((hit) => allowed.has(hit.chunkId)).slice(0, limit);
  }

  chunks(ids: readonly number[]): IndexedChunk[] {
    return ids.flatMap((id) => this.rows.filter((row) => row.chunkId === id));
  }

  embeddingModel(): EmbeddingModel | null {
    return this.model;
  }
}

function matches(row: IndexedChunk, filters: IndexFilters): boolean {
  if (filters.type !== undefined && row.fileType !== filters.type) return false;
  if (filters.folder !== undefined && !row.path.startsWith(`${filters.folder}/`)) return false;
  if (filters.tag !== undefined && !row.tags.includes(filters.tag)) return false;
  return true;
}

let nextId = 1;

/** A note chunk with sensible defaults. */
export function noteChunk(
  partial: Partial<IndexedChunk> & { path: string; text: string },
): IndexedChunk {
  const lines = partial.text.split('\n').length;
  return {
    chunkId: nextId++,
    fileType: 'note',
    title: partial.path.replace(/^.*\//, '').replace(/\.md$/, ''),
    aliases: [],
    tags: [],
    headingPath: [],
    startLine: 1,
    endLine: lines,
    mtimeMs: 0,
    ...partial,
  };
}
