import type { KnowledgeHealth } from '../../shared/protocol/knowledge-health';
import type { Decision } from '../../shared/protocol/decisions';
import type { EmbeddingModel } from '../../shared/ports';
import {
  detectLanguage,
  hasStemmer,
  normaliseQuery,
  stemWord,
  tokenize,
} from '../../shared/search';
import type { Language } from '../../shared/search';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../db/open';
import { PreparedStatements } from '../db/statements';
import { toFtsQuery } from './fts-query';
import { vectorTable } from './index-store';
import { loadVectorExtension } from './vector-extension';
import { RERANK_FACTOR, RERANK_MIN } from '../../shared/search/vector-matrix';
import type { VectorNeighbour } from '../../shared/search/vector-matrix';
import { VectorMemory } from './vector-memory';
import type { DocumentType } from '../../shared/protocol/search';
import type { ChunkHit, IndexFilters, IndexedChunk, RelatedSeed } from './search-index';

/* The filter, hit and chunk shapes are search's port (companion/search/search-index.ts). */
export type { ChunkHit, IndexFilters, IndexedChunk };

export interface IndexQueries {
  /** FTS5 over title, aliases, headings and text with prefix matching; `query` is user text. */
  keyword(query: string, filters: IndexFilters, limit: number): ChunkHit[];
  /** KNN over the stored vectors of the current model (sqlite-vec, cosine). Empty when no vectors. */
  vector(queryVector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[];
  chunks(ids: readonly number[]): IndexedChunk[];
  /** The model whose vectors are stored and complete enough to query, or null (keyword-only). */
  embeddingModel(): EmbeddingModel | null;
  /**
   * Loads the queryable model's vectors into memory now (a no-op when loaded or keyword-only),
   * so the first vector search after a start does not pay for it (0.4–0.9 s at 10k notes).
   */
  warmVectors(): void;
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
  /** A filter letting through at most this many chunks is searched exactly (default 2,000). */
  filterExactMax?: number;
  /** Languages whose stems the FTS text holds (IndexStore.stemLanguages). */
  stemLanguages?: () => Language[];
}

const MAX_LIMIT = 1000;
/**
 * A filter letting through at most this many chunks is searched exactly over just those.
 * Selecting them costs ~1 µs a chunk (bench: ~3.5 ms for 2,000), which a broad filter pays
 * before the nearest-overall pass.
 */
const FILTER_EXACT_MAX = 2000;

/** The queryable model with its row id (its vec0 table and index_vectors rows). */
interface QueryableModel extends EmbeddingModel {
  rowId: number;
}

interface FilterSql {
  sql: string;
  params: Array<string | number>;
}

interface DecisionRow {
  text: string;
  rejected: string;
  kind: Decision['kind'];
  status: string | null;
  date: string | null;
  heading: string | null;
  startLine: number;
  endLine: number;
  path: string;
  title: string;
  noteId: string | null;
}

interface ChunkRow {
  id: number;
  path: string;
  kind: DocumentType;
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
  updatedMs: number | null;
  textHash: string;
}

/** The read side of the vault index over SQLite FTS5 and sqlite-vec; see IndexQueries. */
/** Citations in answers from which a note counts as often cited (knowledge health). */
export const OFTEN_CITED = 3;

export class SqliteIndexQueries implements IndexQueries {
  private readonly weights: ColumnWeights;
  private readonly statements: PreparedStatements;
  private cachedModel: { key: string; model: QueryableModel | null } | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: IndexQueriesOptions = {},
  ) {
    loadVectorExtension(db);
    this.statements = new PreparedStatements(db);
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
    // Stems only for words the index does not hold as typed (`Ordnern` → `ordn`*): OR-ing the
    // stems of every word matched too broadly (obsidian-help-it keyword nDCG@10 0.809 → 0.803).
    const match = toFtsQuery(
      query,
      this.queryStemLanguages(query),
      (term) => this.termStats([term]).documentFrequencies[0] === 0,
    );
    const count = clampLimit(limit);
    if (match === null || count === 0) return [];
    const filter = filterSql(this.withoutEmptyExclusions(filters));
    const { title, aliases, headings, text } = this.weights;
    const rank = `bm25(index_chunks_fts, ${title}, ${aliases}, ${headings}, ${text})`;
    // Unfiltered, the FTS table answers alone: joining chunks and files would cost two lookups
    // for every matching row before the sort keeps `count` of them.
    const sql =
      filter.sql === ''
        ? `SELECT rowid AS id, ${rank} AS rank FROM index_chunks_fts
           WHERE index_chunks_fts MATCH ? ORDER BY rank LIMIT ?`
        : `SELECT c.id AS id, ${rank} AS rank
           FROM index_chunks_fts JOIN index_chunks c ON c.id = index_chunks_fts.rowid
           JOIN index_files f ON f.id = c.file_id
           WHERE index_chunks_fts MATCH ? ${filter.sql}
           ORDER BY rank LIMIT ?`;
    const rows = this.statement(sql).all(match, ...filter.params, count) as Array<{
      id: number;
      rank: number;
    }>;
    return rows.map((row) => ({ chunkId: row.id, score: -row.rank }));
  }

  termStats(terms: readonly string[]): { total: number; documentFrequencies: number[] } {
    const total = (this.statement('SELECT count(*) AS n FROM index_chunks').get() as { n: number })
      .n;
    const documentFrequencies = terms.map((term) => {
      const match = toFtsQuery(term);
      if (match === null) return 0;
      return (
        this.statement(
          'SELECT count(*) AS n FROM index_chunks_fts WHERE index_chunks_fts MATCH ?',
        ).get(match) as { n: number }
      ).n;
    });
    return { total, documentFrequencies };
  }

  warmVectors(): void {
    if (!this.db.open) return;
    const model = this.queryableModel();
    if (model !== null) {
      VectorMemory.of(this.db).matrix(model.rowId, model.dims, vectorTable(model.rowId));
    }
  }

  vector(queryVector: Float32Array, filters: IndexFilters, limit: number): ChunkHit[] {
    const model = this.queryableModel();
    const count = clampLimit(limit);
    if (model === null || count === 0) return [];
    if (queryVector.length !== model.dims) {
      throw new RangeError(
        `vector query: ${queryVector.length} dimensions, but the index holds ${model.id} vectors of ${model.dims}`,
      );
    }
    const matrix = VectorMemory.of(this.db).matrix(
      model.rowId,
      model.dims,
      vectorTable(model.rowId),
    );
    const filter = filterSql(this.withoutEmptyExclusions(filters));
    // A text shared by several chunks counts once per chunk, in chunk id order.
    const hits = (neighbours: VectorNeighbour[], chunksOf: Map<number, number[]>): ChunkHit[] =>
      neighbours
        .flatMap((neighbour) =>
          (chunksOf.get(neighbour.id) ?? []).map((chunkId) => ({
            chunkId,
            score: neighbour.similarity,
          })),
        )
        .sort((a, b) => b.score - a.score || a.chunkId - b.chunkId)
        .slice(0, count);
    const chunksOfTexts = (neighbours: VectorNeighbour[]) =>
      groupChunks(
        this.statement(
          `SELECT v.id, c.id FROM index_vectors v JOIN index_chunks c ON c.text_hash = v.text_hash
           JOIN index_files f ON f.id = c.file_id
           WHERE v.id IN (SELECT value FROM json_each(?)) ${filter.sql}`,
        )
          .raw()
          .all(
            JSON.stringify(neighbours.map((neighbour) => neighbour.id)),
            ...filter.params,
          ) as Array<[number, number]>,
      );
    if (filter.sql !== '') {
      // The filter's own chunks first, files first in the plan (the filters are on files), at
      // most `filterExactMax` + 1 of them. A narrow filter (a folder or tag of many) ends here:
      // only its vectors are compared, exactly, so it never misses a match (bench: 782 chunks
      // of 40k in ~3 ms, where the pass below costs ~6 ms and finds too few).
      const selected = (max: number) =>
        groupChunks(
          this.statement(
            `SELECT v.id, c.id FROM index_files f CROSS JOIN index_chunks c ON c.file_id = f.id
             CROSS JOIN index_vectors v ON v.model_id = ? AND v.text_hash = c.text_hash
             WHERE 1 ${filter.sql} LIMIT ?`,
          )
            .raw()
            .all(model.rowId, ...filter.params, max) as Array<[number, number]>,
        );
      const exactMax = this.options.filterExactMax ?? FILTER_EXACT_MAX;
      const narrow = selected(exactMax + 1);
      const narrowRows = [...narrow.values()].reduce((sum, chunks) => sum + chunks.length, 0);
      if (narrowRows <= exactMax) {
        return hits(
          matrix.nearest(queryVector, count, { only: narrow.keys(), rerank: narrow.size }),
          narrow,
        );
      }
      // A broad filter keeps enough of the nearest texts overall: those are re-ranked exactly
      // (no second prefilter), then filtered.
      const texts = Math.min(matrix.size, Math.max(RERANK_MIN, count * RERANK_FACTOR));
      const overall = matrix.nearest(queryVector, texts, { rerank: texts });
      const found = hits(overall, chunksOfTexts(overall));
      if (found.length >= count || texts >= matrix.size) return found;
      // Between the two: every chunk the filter lets through, prefiltered by code.
      const all = selected(-1);
      return hits(matrix.nearest(queryVector, count, { only: all.keys() }), all);
    }
    // Texts no chunk uses any more (deleted, not yet cleaned up) map to nothing: ask for more
    // texts until `count` chunks are found or every vector was looked at.
    for (let texts = count; ; texts = Math.min(matrix.size, texts * 4)) {
      const neighbours = matrix.nearest(queryVector, texts);
      const found = hits(neighbours, chunksOfTexts(neighbours));
      if (found.length >= count || texts >= matrix.size) return found;
    }
  }

  relatedSeed(path: string): RelatedSeed | undefined {
    const file = this.statement(`SELECT id, title FROM index_files WHERE path = ?`).get(path) as
      { id: number; title: string } | undefined;
    if (file === undefined) return undefined;
    const model = this.queryableModel();
    if (model === null) return { title: file.title, meanVector: null };
    const matrix = VectorMemory.of(this.db).matrix(
      model.rowId,
      model.dims,
      vectorTable(model.rowId),
    );
    const ids = this.statement(
      `SELECT v.id FROM index_chunks c
       JOIN index_vectors v ON v.model_id = ? AND v.text_hash = c.text_hash
       WHERE c.file_id = ?`,
    )
      .pluck()
      .all(model.rowId, file.id) as number[];
    // The mean of the note's unit vectors, as the plugin's own index ranks related notes.
    const mean = new Float32Array(model.dims);
    let count = 0;
    for (const id of ids) {
      const own = matrix.get(id);
      if (own === undefined) continue;
      for (let i = 0; i < mean.length; i++) mean[i] = mean[i]! + own[i]!;
      count++;
    }
    return { title: file.title, meanVector: count === 0 ? null : mean };
  }

  /**
   * Languages to stem the query in: its own when it says (a question in German), else every
   * stemmed language the index holds (a two-word query tells nothing).
   */
  private queryStemLanguages(query: string): Language[] {
    const own = detectLanguage(query);
    if (own !== undefined) return own === 'en' || !hasStemmer(own) ? [] : [own];
    return this.options.stemLanguages?.() ?? [];
  }

  /**
   * The filters without excluded folders that hold no file: an exclusion costs the unfiltered
   * keyword search its fast path (FTS alone, no joins), which a vault without chats need not pay.
   */
  private withoutEmptyExclusions(filters: IndexFilters): IndexFilters {
    if (filters.excludeFolders === undefined || filters.excludeFolders.length === 0) return filters;
    const present = filters.excludeFolders.filter(
      (folder) => this.statement(FOLDER_HAS_FILES).get(...folderRange(folder)) !== undefined,
    );
    const { excludeFolders: _all, ...rest } = filters;
    return present.length === 0 ? rest : { ...rest, excludeFolders: present };
  }

  /** Indexed files (failed ones included) inside `folder`, at any depth. */
  filesUnder(folder: string): number {
    return (this.statement(FOLDER_FILE_COUNT).get(...folderRange(folder)) as { n: number }).n;
  }

  decisions(query: string, limit: number): Decision[] {
    const rows = this.statement(
      `SELECT d.text AS text, d.rejected AS rejected, d.kind AS kind, d.status AS status,
         d.date AS date, d.heading AS heading, d.start_line AS startLine, d.end_line AS endLine,
         f.path AS path, f.title AS title, f.note_id AS noteId
       FROM index_decisions d JOIN index_files f ON f.id = d.file_id`,
    ).all() as DecisionRow[];
    const terms = normaliseQuery(query).terms.map((term) => stemWord(term, 'en'));
    const scored = rows.map((row) => {
      const rejected = JSON.parse(row.rejected) as string[];
      const words = new Set(
        tokenize([row.text, ...rejected, row.title, row.heading ?? ''].join(' ')).map((word) =>
          stemWord(word, 'en'),
        ),
      );
      const matched = terms.filter((term) => words.has(term)).length;
      return { row, rejected, matched };
    });
    return scored
      .filter((hit) => terms.length === 0 || hit.matched > 0)
      .sort((a, b) => b.matched - a.matched || (b.row.date ?? '').localeCompare(a.row.date ?? ''))
      .slice(0, limit)
      .map(({ row, rejected, matched }) => ({
        text: row.text,
        rejected,
        date: row.date,
        kind: row.kind,
        ...(row.status === null ? {} : { status: row.status }),
        citation: {
          type: 'note' as const,
          path: row.path,
          title: row.title,
          ...(row.noteId === null ? {} : { id: row.noteId }),
          excerpt: row.text,
          score: terms.length === 0 ? 1 : Math.min(1, matched / terms.length),
          ...(row.heading === null ? {} : { heading: row.heading }),
          lines: [row.startLine, Math.max(row.startLine, row.endLine)] as [number, number],
          ...(row.date === null ? {} : { date: row.date }),
        },
      }));
  }

  recordCitations(paths: readonly string[]): void {
    const add = this.statement(
      `INSERT INTO citation_counts (path, cited) VALUES (?, 1)
       ON CONFLICT (path) DO UPDATE SET cited = cited + 1`,
    );
    this.db.transaction(() => {
      for (const path of new Set(paths)) add.run(path);
    })();
  }

  knowledgeHealth(now: number): KnowledgeHealth {
    const files = this.statement(
      `SELECT f.path AS path, f.title AS title, f.kind AS kind, f.tags AS tags, f.error AS error,
         f.warnings AS warnings, coalesce(f.updated_ms, f.created_ms, f.mtime_ms) AS dated,
         (SELECT count(*) FROM index_chunks c WHERE c.file_id = f.id AND trim(c.text) NOT IN ('', f.title, '# ' || f.title)) AS texts
       FROM index_files f ORDER BY f.path`,
    ).all() as Array<{
      path: string;
      title: string;
      kind: string;
      tags: string;
      error: string | null;
      warnings: string | null;
      dated: number;
      texts: number;
    }>;
    const item = (file: { path: string; title: string }, reason: string) => ({
      path: file.path,
      title: file.title,
      reason,
    });
    const ok = files.filter((file) => file.error === null);
    const notes = ok.filter((file) => file.kind === 'note' && file.path.endsWith('.md'));
    const tagged = notes.filter((file) => (JSON.parse(file.tags) as string[]).length > 0);
    // "Where the vault usually has them": tags are expected once most notes carry some.
    const tagsUsual = notes.length > 0 && tagged.length / notes.length >= 0.5;
    const byTitle = new Map<string, typeof notes>();
    for (const note of notes) {
      const key = note.title.trim().toLowerCase();
      byTitle.set(key, [...(byTitle.get(key) ?? []), note]);
    }
    const yearAgo = now - 365 * 86_400_000;
    const links = this.wikiLinks();
    // A link names a file by path or name, with or without `.md`, any case (Obsidian's rule).
    const known = new Set<string>();
    for (const file of files) {
      const lower = file.path.toLowerCase();
      const name = lower.split('/').pop() ?? lower;
      for (const key of [lower, name, lower.replace(/\.md$/, ''), name.replace(/\.md$/, '')]) {
        known.add(key);
      }
    }
    const linked = new Set<string>();
    const broken = new Map<string, Set<string>>();
    for (const link of links) {
      const target = link.target.toLowerCase();
      if (known.has(target) || known.has(`${target}.md`)) {
        linked.add(target);
        continue;
      }
      broken.set(link.path, (broken.get(link.path) ?? new Set()).add(link.target));
    }
    const isLinked = (path: string) => {
      const lower = path.toLowerCase();
      return linked.has(lower) || linked.has(lower.split('/').pop() ?? lower);
    };
    return {
      coverage: {
        indexed: ok.length,
        failed: files
          .filter((file) => file.error !== null)
          .map((file) => item(file, file.error ?? '')),
        partial: ok
          .filter((file) => (JSON.parse(file.warnings ?? '[]') as string[]).length > 0)
          .map((file) => item(file, (JSON.parse(file.warnings ?? '[]') as string[]).join('; '))),
      },
      hygiene: {
        untagged: tagsUsual
          ? notes
              .filter((file) => (JSON.parse(file.tags) as string[]).length === 0)
              .map((file) =>
                item(file, `no tags, where ${tagged.length} of ${notes.length} notes have some`),
              )
          : [],
        duplicate_titles: [...byTitle.values()]
          .filter((group) => group.length > 1)
          .flatMap((group) =>
            group.map((file) =>
              item(
                file,
                `title shared with ${group
                  .filter((other) => other !== file)
                  .map((other) => other.path)
                  .join(', ')}`,
              ),
            ),
          ),
        empty: notes.filter((file) => file.texts === 0).map((file) => item(file, 'no text')),
        broken_links: [...broken.entries()].map(([path, targets]) =>
          item(
            { path, title: files.find((file) => file.path === path)?.title ?? path },
            `links to ${[...targets].map((t) => `[[${t}]]`).join(', ')}, which no file is`,
          ),
        ),
        orphaned_attachments: ok
          .filter((file) => file.kind === 'pdf' && !isLinked(file.path))
          .map((file) => item(file, 'no note links to it')),
      },
      staleness: {
        not_updated_in_a_year: notes
          .filter((file) => file.dated > 0 && file.dated < yearAgo)
          .sort((a, b) => a.dated - b.dated)
          .map((file) =>
            item(file, `last updated ${new Date(file.dated).toISOString().slice(0, 10)}`),
          ),
        often_cited: this.oftenCitedStale(notes, yearAgo).map(({ file, cited }) =>
          item(
            file,
            `cited in ${cited} answers, last updated ${new Date(file.dated).toISOString().slice(0, 10)}`,
          ),
        ),
      },
    };
  }

  /** Notes cited at least OFTEN_CITED times and not updated since `before`, most cited first. */
  private oftenCitedStale<T extends { path: string; dated: number }>(
    notes: readonly T[],
    before: number,
  ): Array<{ file: T; cited: number }> {
    const counts = new Map(
      (
        this.statement('SELECT path, cited FROM citation_counts WHERE cited >= ?').all(
          OFTEN_CITED,
        ) as Array<{ path: string; cited: number }>
      ).map((row) => [row.path, row.cited]),
    );
    return notes
      .filter((file) => file.dated > 0 && file.dated < before && counts.has(file.path))
      .map((file) => ({ file, cited: counts.get(file.path) ?? 0 }))
      .sort((a, b) => b.cited - a.cited || a.file.path.localeCompare(b.file.path));
  }

  /** Every `[[target]]` / `![[target]]` in the indexed notes' text, with the linking note. */
  private wikiLinks(): Array<{ path: string; target: string }> {
    const rows = this.statement(
      `SELECT f.path AS path, c.text AS text FROM index_chunks c JOIN index_files f ON f.id = c.file_id
       WHERE f.kind <> 'pdf' AND c.text LIKE '%[[%'`,
    ).all() as Array<{ path: string; text: string }>;
    const links: Array<{ path: string; target: string }> = [];
    for (const row of rows) {
      // Links shown as code (`[[like this]]`, fenced examples) link nowhere.
      const text = row.text.replace(/(`{3,}|~{3,})[^]*?(?:\1|$)/g, ' ').replace(/`[^`\n]*`/g, ' ');
      for (const match of text.matchAll(
        /\[\[([^\]|#^\n]*)(?:[#^][^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g,
      )) {
        // In a table the alias bar is escaped (`[[Note\\|alias]]`): the backslash is no part of the name.
        const target = (match[1] ?? '').replace(/\\$/, '').trim();
        // `[[#Heading]]` links into the note itself.
        if (target !== '') links.push({ path: row.path, target });
      }
    }
    return links;
  }

  chunks(ids: readonly number[]): IndexedChunk[] {
    if (ids.length === 0) return [];
    const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id));
    const byId = new Map<number, IndexedChunk>();
    // One statement for any number of ids (a JSON array), prepared once.
    const rows = this.statement(
      `SELECT c.id AS id, f.path AS path, f.kind AS kind, f.note_id AS noteId, f.title AS title,
         f.aliases AS aliases, f.tags AS tags, c.heading_path AS headingPath,
         c.start_line AS startLine, c.end_line AS endLine, c.page AS page, c.text AS text,
         f.mtime_ms AS mtimeMs, f.created_ms AS createdMs, f.updated_ms AS updatedMs,
         c.text_hash AS textHash
       FROM index_chunks c JOIN index_files f ON f.id = c.file_id
       WHERE c.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(wanted)) as ChunkRow[];
    for (const row of rows) byId.set(row.id, toIndexedChunk(row));
    // In the order asked for; ids no longer in the index (a file deleted since) are left out.
    return ids.flatMap((id) => {
      const chunk = byId.get(id);
      return chunk ? [chunk] : [];
    });
  }

  embeddingModel(): EmbeddingModel | null {
    const model = this.queryableModel();
    return model === null ? null : { id: model.id, dims: model.dims };
  }

  /**
   * The model to query, recomputed only after the database changed: the coverage count reads
   * every chunk and vector (~20 ms at 40k chunks), and search asks on every query. Any write
   * on this connection moves total_changes(), a commit from another moves data_version.
   */
  private queryableModel(): QueryableModel | null {
    const version = this.statement(
      'SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS data',
    ).get() as { changes: number; data: number };
    const preferred = this.options.preferredModel?.() ?? null;
    const key = `${version.changes}/${version.data}/${preferred?.id ?? ''}/${preferred?.dims ?? ''}`;
    if (this.cachedModel?.key !== key) {
      this.cachedModel = { key, model: this.computeQueryableModel(preferred) };
    }
    return this.cachedModel.model;
  }

  private computeQueryableModel(preferred: EmbeddingModel | null): QueryableModel | null {
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
    const chosen =
      models.find(
        (row) => preferred && row.model === preferred.id && row.dims === preferred.dims,
      ) ?? [...models].sort((a, b) => b.vectors - a.vectors)[0]!;
    return { id: chosen.model, dims: chosen.dims, rowId: chosen.id };
  }

  /** Prepared once per SQL text (PreparedStatements). */
  private statement(sql: string): Statement<unknown[], unknown> {
    return this.statements.prepare(sql);
  }
}

const FOLDER_HAS_FILES = 'SELECT 1 FROM index_files WHERE path >= ? AND path < ? LIMIT 1';
const FOLDER_FILE_COUNT = 'SELECT count(*) AS n FROM index_files WHERE path >= ? AND path < ?';

/** `[low, high)` bounds of the paths inside `folder`, so the path index answers. */
function folderRange(folder: string): [string, string] {
  const prefix = `${folder.replace(/^\/+|\/+$/g, '')}/`;
  // '0' is the character after '/': every path starting with the prefix sorts below it.
  return [prefix, `${prefix.slice(0, -1)}0`];
}

/** Rows of (vector id, chunk id) grouped by vector id, chunk ids ascending. */
function groupChunks(
  rows: ReadonlyArray<[number, number]>,
  into = new Map<number, number[]>(),
): Map<number, number[]> {
  for (const [vectorId, chunkId] of rows) {
    const chunks = into.get(vectorId);
    if (chunks) chunks.push(chunkId);
    else into.set(vectorId, [chunkId]);
  }
  for (const chunks of into.values()) chunks.sort((a, b) => a - b);
  return into;
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
  if (filters.onlyFolders !== undefined) {
    const inside = filters.onlyFolders.map(() => '(f.path >= ? AND f.path < ?)');
    parts.push(inside.length === 0 ? '0' : `(${inside.join(' OR ')})`);
    for (const folder of filters.onlyFolders) params.push(...folderRange(folder));
  }
  for (const excluded of filters.excludeFolders ?? []) {
    const [low, high] = folderRange(excluded);
    parts.push('NOT (f.path >= ? AND f.path < ?)');
    params.push(low, high);
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
    ...(row.updatedMs === null ? {} : { updatedMs: row.updatedMs }),
    textHash: row.textHash,
  };
}
