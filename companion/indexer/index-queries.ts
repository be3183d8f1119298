import type { EmbeddingModel } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';
import { toFtsQuery } from './fts-query';
import { vectorTable } from './index-store';
import type { FileKind } from './index-store';
import { loadVectorExtension } from './vector-extension';

export interface IndexFilters {
  /** Vault-relative folder; the file must be inside it (at any depth). */
  folder?: string;
  /** A tag without `#`; also matches its nested tags (`travel` matches `travel/visa`). Case-insensitive. */
  tag?: string;
  type?: FileKind;
  /** Inclusive bounds, ms since the epoch, on front-matter `created` or else the file's mtime. */
  from?: number;
  to?: number;
}

/** Ranked best first; score: negated BM25 (higher better) or cosine similarity. */
export interface ChunkHit {
  chunkId: number;
  score: number;
}

export interface IndexedChunk {
  chunkId: number;
  path: string;
  fileType: FileKind;
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
  textHash: string;
}

export interface IndexQueries {
  /** FTS5 over title, aliases, headings and text with prefix matching; `query` is user text. */
  keyword(query: string, filters: IndexFilters, limit: number): ChunkHit[];
  /** KNN over the stored vectors of the current model (sqlite-vec, cosine). Empty when no vectors. */
  vector(queryVector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[];
  chunks(ids: readonly number[]): IndexedChunk[];
  /** The model whose vectors are stored and complete enough to query, or null (keyword-only). */
  embeddingModel(): EmbeddingModel | null;
}

/** BM25 weights of the FTS columns, in table order: title, aliases, headings, text. */
export interface ColumnWeights {
  title: number;
  aliases: number;
  headings: number;
  text: number;
}

export const DEFAULT_COLUMN_WEIGHTS: Readonly<ColumnWeights> = {
  title: 5,
  aliases: 4,
  headings: 2,
  text: 1,
};

/** A model counts as queryable once this share of the index's distinct texts has vectors. */
export const QUERYABLE_COVERAGE = 0.5;

export interface IndexQueriesOptions {
  weights?: Partial<ColumnWeights>;
  /** The model the running embedder produces; preferred when it is queryable. */
  preferredModel?: () => EmbeddingModel | null;
}

const MAX_LIMIT = 1000;
/** sqlite-vec's KNN caps k. */
const MAX_KNN = 4096;
/** With filters, KNN fetches this many times `limit` neighbours before filtering. */
const KNN_OVERSAMPLE = 20;

interface FilterSql {
  sql: string;
  params: Array<string | number>;
}

interface ChunkRow {
  id: number;
  path: string;
  kind: FileKind;
  noteId: string | null;
  title: string;
  aliases: string;
  tags: string;
  headingPath: string;
  startLine: number | null;
  endLine: number | null;
  page: number | null;
  text: string;
  mtimeMs: number;
  createdMs: number | null;
  textHash: string;
}

/** The read side of the vault index over SQLite FTS5 and sqlite-vec; see IndexQueries. */
export class SqliteIndexQueries implements IndexQueries {
  private readonly weights: ColumnWeights;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: IndexQueriesOptions = {},
  ) {
    loadVectorExtension(db);
    this.weights = { ...DEFAULT_COLUMN_WEIGHTS, ...options.weights };
    for (const [column, weight] of Object.entries(this.weights)) {
      if (!Number.isFinite(weight) || weight < 0) {
        throw new RangeError(
          `index column weights: ${column} must be a number ≥ 0 (got ${weight})`,
        );
      }
    }
  }

  keyword(query: string, filters: IndexFilters, limit: number): ChunkHit[] {
    const match = toFtsQuery(query);
    const count = clampLimit(limit);
    if (match === null || count === 0) return [];
    const filter = filterSql(filters);
    const { title, aliases, headings, text } = this.weights;
    const rank = `bm25(index_chunks_fts, ${title}, ${aliases}, ${headings}, ${text})`;
    const rows = this.db
      .prepare<Array<string | number>, { id: number; rank: number }>(
        `SELECT c.id AS id, ${rank} AS rank
         FROM index_chunks_fts JOIN index_chunks c ON c.id = index_chunks_fts.rowid
         JOIN index_files f ON f.id = c.file_id
         WHERE index_chunks_fts MATCH ? ${filter.sql}
         ORDER BY rank LIMIT ?`,
      )
      .all(match, ...filter.params, count);
    return rows.map((row) => ({ chunkId: row.id, score: -row.rank }));
  }

  vector(queryVector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[] {
    const model = this.embeddingModel();
    const count = clampLimit(limit);
    if (model === null || count === 0) return [];
    if (queryVector.length !== model.dims) {
      throw new RangeError(
        `vector query: ${queryVector.length} dimensions, but the index holds ${model.id} vectors of ${model.dims}`,
      );
    }
    const row = this.db
      .prepare<[string], { id: number }>('SELECT id FROM index_embedding_models WHERE model = ?')
      .get(model.id);
    if (!row) return [];
    const table = vectorTable(row.id);
    const blob = Buffer.from(queryVector.buffer, queryVector.byteOffset, queryVector.byteLength);
    const filter = filterSql(filters);
    // sqlite-vec's KNN finds the nearest texts; their chunks are then filtered. A text shared
    // by several chunks counts once per chunk. With a narrow filter (one folder of many), the
    // nearest k may hold fewer than `limit` matching chunks: then the filtered chunks are
    // compared exactly instead (a scan, but only over what the filter lets through).
    const total = this.vectorTotal(row.id);
    const nearestMatching = (k: number) =>
      this.db
        .prepare<Array<Buffer | string | number>, { id: number; distance: number }>(
          `WITH nearest AS (
             SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?
           )
           SELECT c.id AS id, nearest.distance AS distance
           FROM nearest JOIN index_vectors v ON v.id = nearest.rowid
           JOIN index_chunks c ON c.text_hash = v.text_hash
           JOIN index_files f ON f.id = c.file_id
           WHERE 1 ${filter.sql}
           ORDER BY nearest.distance, c.id LIMIT ?`,
        )
        .all(blob, k, ...filter.params, count);
    // A filter is tried first over a small oversample, then over the widest KNN sqlite-vec
    // allows (one pass over the vectors either way: ~50 ms at 40k), and only then by the exact
    // per-chunk comparison, whose vec0 row lookups cost seconds at 10k notes (bench: 10 s).
    let k = Math.min(MAX_KNN, filter.sql === '' ? count * 2 : count * KNN_OVERSAMPLE, total);
    let knn = nearestMatching(k);
    if (knn.length < count && k < total && k < MAX_KNN) {
      k = Math.min(MAX_KNN, total);
      knn = nearestMatching(k);
    }
    const rows =
      knn.length >= count || k >= total
        ? knn
        : this.db
            .prepare<Array<Buffer | string | number>, { id: number; distance: number }>(
              `SELECT c.id AS id, vec_distance_cosine(e.embedding, ?) AS distance
               FROM index_chunks c JOIN index_files f ON f.id = c.file_id
               JOIN index_vectors v ON v.model_id = ? AND v.text_hash = c.text_hash
               JOIN ${table} e ON e.rowid = v.id
               WHERE 1 ${filter.sql}
               ORDER BY distance, c.id LIMIT ?`,
            )
            .all(blob, row.id, ...filter.params, count);
    return rows.map((hit) => ({ chunkId: hit.id, score: 1 - hit.distance }));
  }

  private vectorTotal(modelRowId: number): number {
    return (
      this.db
        .prepare<[number], { n: number }>(
          'SELECT count(*) AS n FROM index_vectors WHERE model_id = ?',
        )
        .get(modelRowId)?.n ?? 0
    );
  }

  chunks(ids: readonly number[]): IndexedChunk[] {
    if (ids.length === 0) return [];
    const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id));
    const byId = new Map<number, IndexedChunk>();
    // SQLite's default bound-parameter limit is 32766; stay well below it.
    for (let start = 0; start < wanted.length; start += 500) {
      const slice = wanted.slice(start, start + 500);
      const rows = this.db
        .prepare<number[], ChunkRow>(
          `SELECT c.id AS id, f.path AS path, f.kind AS kind, f.note_id AS noteId, f.title AS title,
             f.aliases AS aliases, f.tags AS tags, c.heading_path AS headingPath,
             c.start_line AS startLine, c.end_line AS endLine, c.page AS page, c.text AS text,
             f.mtime_ms AS mtimeMs, f.created_ms AS createdMs, c.text_hash AS textHash
           FROM index_chunks c JOIN index_files f ON f.id = c.file_id
           WHERE c.id IN (${slice.map(() => '?').join(',')})`,
        )
        .all(...slice);
      for (const row of rows) byId.set(row.id, toIndexedChunk(row));
    }
    // In the order asked for; ids no longer in the index (a file deleted since) are left out.
    return ids.flatMap((id) => {
      const chunk = byId.get(id);
      return chunk ? [chunk] : [];
    });
  }

  embeddingModel(): EmbeddingModel | null {
    const total =
      this.db
        .prepare<[], { n: number }>('SELECT count(DISTINCT text_hash) AS n FROM index_chunks')
        .get()?.n ?? 0;
    if (total === 0) return null;
    const models = this.db
      .prepare<[], { id: number; model: string; dims: number; vectors: number }>(
        `SELECT m.id, m.model, m.dims,
           (SELECT count(*) FROM index_vectors v WHERE v.model_id = m.id
              AND EXISTS (SELECT 1 FROM index_chunks c WHERE c.text_hash = v.text_hash)) AS vectors
         FROM index_embedding_models m ORDER BY m.id DESC`,
      )
      .all()
      .filter((row) => row.vectors / total >= QUERYABLE_COVERAGE);
    if (models.length === 0) return null;
    const preferred = this.options.preferredModel?.();
    const chosen =
      models.find(
        (row) => preferred && row.model === preferred.id && row.dims === preferred.dims,
      ) ?? [...models].sort((a, b) => b.vectors - a.vectors)[0]!;
    return { id: chosen.model, dims: chosen.dims };
  }
}

function clampLimit(limit: number): number {
  if (!Number.isFinite(limit) || limit <= 0) return 0;
  return Math.min(MAX_LIMIT, Math.floor(limit));
}

/** ` AND …` conditions on `f` (index_files) for the filters given; '' for none. */
function filterSql(filters: IndexFilters): FilterSql {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  if (filters.folder !== undefined) {
    const folder = filters.folder.replace(/^\/+|\/+$/g, '');
    if (folder !== '') {
      const prefix = `${folder}/`;
      parts.push('substr(f.path, 1, ?) = ?');
      params.push(prefix.length, prefix);
    }
  }
  if (filters.tag !== undefined) {
    const tag = filters.tag.replace(/^#/, '').toLowerCase();
    if (tag !== '') {
      parts.push(
        `EXISTS (SELECT 1 FROM index_file_tags t WHERE t.file_id = f.id AND (t.tag = ? OR substr(t.tag, 1, ?) = ?))`,
      );
      params.push(tag, tag.length + 1, `${tag}/`);
    }
  }
  if (filters.type !== undefined) {
    parts.push('f.kind = ?');
    params.push(filters.type);
  }
  if (filters.from !== undefined) {
    parts.push('coalesce(f.created_ms, f.mtime_ms) >= ?');
    params.push(filters.from);
  }
  if (filters.to !== undefined) {
    parts.push('coalesce(f.created_ms, f.mtime_ms) <= ?');
    params.push(filters.to);
  }
  return { sql: parts.map((part) => ` AND ${part}`).join(''), params };
}

function toIndexedChunk(row: ChunkRow): IndexedChunk {
  const headingPath = JSON.parse(row.headingPath) as string[];
  const heading = headingPath[headingPath.length - 1];
  return {
    chunkId: row.id,
    path: row.path,
    fileType: row.kind,
    ...(row.noteId === null ? {} : { noteId: row.noteId }),
    title: row.title,
    aliases: JSON.parse(row.aliases) as string[],
    tags: JSON.parse(row.tags) as string[],
    headingPath,
    ...(heading === undefined ? {} : { heading }),
    ...(row.startLine === null ? {} : { startLine: row.startLine }),
    ...(row.endLine === null ? {} : { endLine: row.endLine }),
    ...(row.page === null ? {} : { page: row.page }),
    text: row.text,
    mtimeMs: row.mtimeMs,
    ...(row.createdMs === null ? {} : { createdMs: row.createdMs }),
    textHash: row.textHash,
  };
}
