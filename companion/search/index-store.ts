import type { ExtractedDecision } from '../../shared/search/decisions';
import type { EmbeddingModel } from '../../shared/ports';
import type { DocumentType } from '../../shared/protocol/search';
import { hasStemmer, spaceUnspacedWords } from '../../shared/search';
import type { Language } from '../../shared/search';
import { inTransaction } from '../db/open';
import type { SqliteDatabase } from '../db/open';
import { loadVectorExtension } from './vector-extension';
import { VectorMemory } from './vector-memory';

/** One vault file as the index stores it. */
export interface FileRecord {
  readonly path: string;
  readonly kind: DocumentType;
  readonly noteId?: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly aliases: readonly string[];
  readonly mtimeMs: number;
  readonly createdMs?: number;
  /** Front-matter `updated` (migration 011). */
  readonly updatedMs?: number;
  readonly size: number;
  /**
   * What tells this version of the file from the next: the bytes' SHA-256 with the index format
   * (`indexedVersionOfHash`), or a `refused:` marker; the `content_hash` column.
   */
  readonly indexedVersion: string;
  /** Set when the file could not be indexed (then it usually has no chunks). */
  readonly error?: string;
  /** What was salvaged around: the file is indexed, but not all of it as written. */
  readonly warnings: readonly string[];
  /** The language its text is written in (front-matter `lang`, else detected), if known. */
  readonly language?: Language;
}

export interface ChunkRecord {
  readonly chunkKey: string;
  readonly headingPath: readonly string[];
  readonly startLine?: number;
  readonly endLine?: number;
  readonly page?: number;
  readonly text: string;
  readonly textHash: string;
}

/** What a restart compares against to skip unchanged files. */
export interface StoredFileState {
  readonly indexedVersion: string;
  readonly mtimeMs: number;
  readonly size: number;
}

export interface FileProblem {
  readonly path: string;
  readonly error: string;
}

/** A chunk whose vector for some model is missing: the text to embed under its hash. */
export interface EmbeddingInput {
  readonly textHash: string;
  readonly text: string;
}

interface ModelRow {
  id: number;
  model: string;
  dims: number;
}

/**
 * When a note's decisions were taken: its front-matter `created` (a meeting note is written on
 * the day), else a date in its name (`2025-03-04 Infra sync.md`), else `updated`, else the
 * file's time. An ADR's own `Date:` line wins over all of these.
 */
function decisionDate(file: FileRecord): string | null {
  const day = (ms: number | undefined) =>
    ms === undefined || !Number.isFinite(ms) || ms <= 0
      ? undefined
      : new Date(ms).toISOString().slice(0, 10);
  const named = /(?:^|\/)[^/]*?(\d{4}-\d{2}-\d{2})[^/]*$/.exec(file.path)?.[1];
  return day(file.createdMs) ?? named ?? day(file.updatedMs) ?? day(file.mtimeMs) ?? null;
}

/**
 * The index's tables (migration 002) behind named operations. Every write of one file is a
 * single transaction: the file row, its tags, its chunks and their FTS rows appear or
 * disappear together, so a crash never leaves a half-indexed file.
 */
export class IndexStore {
  private languages: Set<Language> | undefined;
  /**
   * True while the first build takes in a vault (the index held no file when opened: a copied,
   * restored or sample vault): the files it finds are no change someone made that week.
   */
  private firstBuild: boolean;

  constructor(
    readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    loadVectorExtension(db);
    this.firstBuild = this.count('SELECT count(*) AS n FROM index_files') === 0;
  }

  /** The vault indexer's first scan is done: files new to the index from now on are changes. */
  endFirstBuild(): void {
    this.firstBuild = false;
  }

  fileState(path: string): StoredFileState | undefined {
    return this.db
      .prepare<[string], StoredFileState>(
        'SELECT content_hash AS indexedVersion, mtime_ms AS mtimeMs, size FROM index_files WHERE path = ?',
      )
      .get(path);
  }

  /** Every indexed path with what a scan compares against, in one query. */
  fileStates(): Map<string, StoredFileState> {
    const rows = this.db
      .prepare<[], StoredFileState & { path: string }>(
        'SELECT path, content_hash AS indexedVersion, mtime_ms AS mtimeMs, size FROM index_files',
      )
      .all();
    return new Map(rows.map(({ path, ...state }) => [path, state]));
  }

  /** Replaces everything stored for `file.path` with this record and these chunks. */
  replaceFile(
    file: FileRecord,
    chunks: readonly ChunkRecord[],
    decisions: readonly ExtractedDecision[] = [],
  ): void {
    inTransaction(this.db, () => {
      // When the content last changed (the digest's "Notes changed", migration 009): a new hash
      // is a change now, the same hash keeps the earlier time, a file new to the index is a
      // change unless the very first build is taking the vault in.
      const before = this.db
        .prepare<[string], { hash: string; changed: number | null }>(
          'SELECT content_hash AS hash, content_changed_ms AS changed FROM index_files WHERE path = ?',
        )
        .get(file.path);
      const contentChanged =
        before === undefined
          ? this.firstBuild
            ? null
            : this.now()
          : before.hash === file.indexedVersion
            ? before.changed
            : this.now();
      this.deleteRows(file.path);
      const { lastInsertRowid } = this.db
        .prepare(
          `INSERT INTO index_files (path, kind, note_id, title, tags, aliases, mtime_ms, created_ms,
             size, content_hash, indexed_at, error, warnings, content_changed_ms, updated_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          file.path,
          file.kind,
          file.noteId ?? null,
          file.title,
          JSON.stringify(file.tags),
          JSON.stringify(file.aliases),
          Math.round(file.mtimeMs),
          file.createdMs === undefined ? null : Math.round(file.createdMs),
          file.size,
          file.indexedVersion,
          this.now(),
          file.error ?? null,
          JSON.stringify(file.warnings),
          contentChanged,
          file.updatedMs === undefined ? null : Math.round(file.updatedMs),
        );
      const fileId = Number(lastInsertRowid);
      const insertTag = this.db.prepare(
        'INSERT OR IGNORE INTO index_file_tags (file_id, tag) VALUES (?, ?)',
      );
      for (const tag of file.tags) insertTag.run(fileId, tag.toLowerCase());

      const insertChunk = this.db.prepare(
        `INSERT INTO index_chunks (file_id, ordinal, chunk_key, heading_path, start_line, end_line,
           page, text, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insertFts = this.db.prepare(
        'INSERT INTO index_chunks_fts (rowid, title, aliases, headings, text) VALUES (?, ?, ?, ?, ?)',
      );
      const aliases = spaceUnspacedWords(file.aliases.join('\n'));
      const title = spaceUnspacedWords(file.title);
      if (file.language !== undefined) this.rememberLanguage(file.language);
      chunks.forEach((chunk, ordinal) => {
        const chunkId = insertChunk.run(
          fileId,
          ordinal,
          chunk.chunkKey,
          JSON.stringify(chunk.headingPath),
          chunk.startLine ?? null,
          chunk.endLine ?? null,
          chunk.page ?? null,
          chunk.text,
          chunk.textHash,
        ).lastInsertRowid;
        const headings = chunk.headingPath.join('\n');
        insertFts.run(chunkId, title, aliases, spaceUnspacedWords(headings), ftsText(chunk.text));
      });
      if (decisions.length > 0) {
        const insertDecision = this.db.prepare(
          `INSERT INTO index_decisions (file_id, ordinal, text, rejected, kind, status, date,
             heading, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        const noteDate = decisionDate(file);
        decisions.forEach((decision, ordinal) => {
          insertDecision.run(
            fileId,
            ordinal,
            decision.text,
            JSON.stringify(decision.rejected),
            decision.kind,
            decision.status ?? null,
            decision.date ?? noteDate,
            decision.heading ?? null,
            decision.startLine,
            decision.endLine,
          );
        });
      }
    });
  }

  /** Removes a file and its chunks; returns its kind, or null when it was not indexed. */
  removeFile(path: string): DocumentType | null {
    return inTransaction(this.db, () => {
      const kind = this.kindOf(path);
      if (kind !== null) this.deleteRows(path);
      return kind;
    });
  }

  /** Removes every file under a folder (deleted or moved away); returns what was removed. */
  removeFolderWithKinds(folder: string): Array<{ path: string; kind: DocumentType }> {
    const prefix = folder.endsWith('/') ? folder : `${folder}/`;
    return inTransaction(this.db, () => {
      const rows = this.db
        // Numbered parameters (?1, ?2) are not bound from an argument list by better-sqlite3
        // ("Too many parameter values"): plain ones, in order.
        .prepare<[number, string], { path: string; kind: DocumentType }>(
          'SELECT path, kind FROM index_files WHERE substr(path, 1, ?) = ?',
        )
        .all(prefix.length, prefix);
      for (const row of rows) this.deleteRows(row.path);
      return rows;
    });
  }

  /** Records a new mtime/size for a file whose content hash did not change (a `touch`). */
  touchFile(path: string, mtimeMs: number, size: number): void {
    this.db
      .prepare('UPDATE index_files SET mtime_ms = ?, size = ? WHERE path = ?')
      .run(Math.round(mtimeMs), size, path);
  }

  private kindOf(path: string): DocumentType | null {
    return (
      this.db
        .prepare<[string], { kind: DocumentType }>('SELECT kind FROM index_files WHERE path = ?')
        .get(path)?.kind ?? null
    );
  }

  private deleteRows(path: string): boolean {
    const row = this.db
      .prepare<[string], { id: number }>('SELECT id FROM index_files WHERE path = ?')
      .get(path);
    if (!row) return false;
    this.db
      .prepare(
        'DELETE FROM index_chunks_fts WHERE rowid IN (SELECT id FROM index_chunks WHERE file_id = ?)',
      )
      .run(row.id);
    // Chunks and tags go with the file (ON DELETE CASCADE).
    this.db.prepare('DELETE FROM index_files WHERE id = ?').run(row.id);
    return true;
  }

  /**
   * Notes (not reminder notes or PDFs) created or changed at or after `since` (epoch ms), for
   * the weekly digest.
   */
  /**
   * Notes created (front-matter `created`) or whose content changed (a new hash, not a new
   * mtime: a copy or a `touch` is no change) at or after `since`. `modified` is when the
   * content last changed, null when no change was seen.
   */
  notesTouchedSince(
    since: number,
  ): Array<{ path: string; title: string; created: number | null; modified: number | null }> {
    return this.db
      .prepare<
        [number, number],
        { path: string; title: string; created: number | null; modified: number | null }
      >(
        `SELECT path, title, created_ms AS created, content_changed_ms AS modified FROM index_files
         WHERE kind = 'note' AND (content_changed_ms >= ? OR created_ms >= ?)`,
      )
      .all(since, since);
  }

  /** Files indexed (with or without warnings; failed files not counted). */
  fileCount(): number {
    return this.count('SELECT count(*) AS n FROM index_files WHERE error IS NULL');
  }

  chunkCount(): number {
    return this.count('SELECT count(*) AS n FROM index_chunks');
  }

  failedCount(): number {
    return this.count('SELECT count(*) AS n FROM index_files WHERE error IS NOT NULL');
  }

  /**
   * Files that failed, then files indexed with warnings (prefixed "indexed partly:"), path
   * order, at most `limit`.
   */
  problems(limit: number): FileProblem[] {
    const rows = this.db
      .prepare<[number], { path: string; error: string | null; warnings: string }>(
        `SELECT path, error, warnings FROM index_files
         WHERE error IS NOT NULL OR warnings <> '[]'
         ORDER BY error IS NULL, path LIMIT ?`,
      )
      .all(limit);
    return rows.map((row) => ({
      path: row.path,
      error: row.error ?? `indexed partly: ${(JSON.parse(row.warnings) as string[]).join('; ')}`,
    }));
  }

  // ---- vectors ----------------------------------------------------------------------------

  /** The row for `model`, created with its vec0 table on first use. */
  ensureModel(model: EmbeddingModel): ModelRow {
    if (!Number.isInteger(model.dims) || model.dims < 1 || model.dims > 8192) {
      throw new Error(
        `embedding model ${model.id}: dims must be an integer in 1..8192 (got ${model.dims})`,
      );
    }
    return inTransaction(this.db, () => {
      const existing = this.modelRow(model.id);
      if (existing && existing.dims === model.dims) return existing;
      // Same id, other dims (a model re-pulled under the same name): its vectors are useless.
      if (existing) this.dropModel(existing);
      const id = Number(
        this.db
          .prepare('INSERT INTO index_embedding_models (model, dims, created_at) VALUES (?, ?, ?)')
          .run(model.id, model.dims, this.now()).lastInsertRowid,
      );
      // Table names cannot be bound; both numbers are checked integers.
      this.db.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${vectorTable(id)} USING vec0(embedding float[${model.dims}] distance_metric=cosine)`,
      );
      return { id, model: model.id, dims: model.dims };
    });
  }

  modelRow(modelId: string): ModelRow | undefined {
    return this.db
      .prepare<[string], ModelRow>(
        'SELECT id, model, dims FROM index_embedding_models WHERE model = ?',
      )
      .get(modelId);
  }

  models(): ModelRow[] {
    return this.db
      .prepare<[], ModelRow>('SELECT id, model, dims FROM index_embedding_models ORDER BY id')
      .all();
  }

  /** Drops every model but `keep` with its vectors (after `keep` covers the whole index). */
  dropModelsExcept(keep: number): void {
    for (const row of this.models())
      if (row.id !== keep) inTransaction(this.db, () => this.dropModel(row));
  }

  private dropModel(row: ModelRow): void {
    this.db.exec(`DROP TABLE IF EXISTS ${vectorTable(row.id)}`);
    this.db.prepare('DELETE FROM index_embedding_models WHERE id = ?').run(row.id);
    // Even if the transaction rolls back: the model is then read from SQLite again on demand.
    VectorMemory.of(this.db).dropped(row.id);
  }

  /** Distinct chunk texts that have no vector for this model yet, oldest chunks first. */
  missingVectors(modelRowId: number, limit: number): EmbeddingInput[] {
    const rows = this.db
      .prepare<
        [number, number],
        { textHash: string; title: string; headingPath: string; text: string }
      >(
        `SELECT c.text_hash AS textHash, f.title AS title, c.heading_path AS headingPath, c.text AS text
         FROM index_chunks c JOIN index_files f ON f.id = c.file_id
         WHERE NOT EXISTS (SELECT 1 FROM index_vectors v WHERE v.model_id = ? AND v.text_hash = c.text_hash)
         GROUP BY c.text_hash ORDER BY min(c.id) LIMIT ?`,
      )
      .all(modelRowId, limit);
    return rows.map((row) => ({
      textHash: row.textHash,
      text: embeddingText(row.title, JSON.parse(row.headingPath) as string[], row.text),
    }));
  }

  /** Number of distinct chunk texts without a vector for this model. */
  missingVectorCount(modelRowId: number): number {
    return this.count(
      `SELECT count(DISTINCT c.text_hash) AS n FROM index_chunks c
       WHERE NOT EXISTS (SELECT 1 FROM index_vectors v WHERE v.model_id = ${modelRowId} AND v.text_hash = c.text_hash)`,
    );
  }

  distinctTextCount(): number {
    return this.count('SELECT count(DISTINCT text_hash) AS n FROM index_chunks');
  }

  vectorCount(modelRowId: number): number {
    return this.count(`SELECT count(*) AS n FROM index_vectors WHERE model_id = ${modelRowId}`);
  }

  /** Stores vectors (one transaction). A hash that already has one keeps it. */
  storeVectors(
    model: ModelRow,
    items: ReadonlyArray<{ textHash: string; vector: Float32Array }>,
  ): number {
    for (const item of items) checkVector(model, item.vector);
    const added: Array<{ id: number; vector: Float32Array }> = [];
    const stored = inTransaction(this.db, () => {
      const insertRow = this.db.prepare(
        'INSERT OR IGNORE INTO index_vectors (model_id, text_hash, dims, created_at) VALUES (?, ?, ?, ?)',
      );
      const insertVector = this.db.prepare(
        `INSERT INTO ${vectorTable(model.id)} (rowid, embedding) VALUES (?, ?)`,
      );
      let stored = 0;
      const now = this.now();
      for (const item of items) {
        const result = insertRow.run(model.id, item.textHash, model.dims, now);
        if (result.changes === 0) continue;
        insertVector.run(
          BigInt(result.lastInsertRowid),
          Buffer.from(item.vector.buffer, item.vector.byteOffset, item.vector.byteLength),
        );
        added.push({ id: Number(result.lastInsertRowid), vector: item.vector });
        stored++;
      }
      return stored;
    });
    // After the commit: the in-memory copy never holds a vector the database rolled back.
    VectorMemory.of(this.db).added(model.id, added);
    return stored;
  }

  /**
   * Deletes vectors no chunk refers to any more (their text was edited away or deleted).
   * Called when the indexer is idle, so a rename (delete, then add of the same text) keeps them.
   */
  removeOrphanVectors(): number {
    const removedByModel = new Map<number, number[]>();
    const removed = inTransaction(this.db, () => {
      let removed = 0;
      for (const model of this.models()) {
        const orphans = this.db
          .prepare<[number], { id: number }>(
            `SELECT v.id FROM index_vectors v WHERE v.model_id = ?
             AND NOT EXISTS (SELECT 1 FROM index_chunks c WHERE c.text_hash = v.text_hash)`,
          )
          .all(model.id);
        const deleteVector = this.db.prepare(
          `DELETE FROM ${vectorTable(model.id)} WHERE rowid = ?`,
        );
        const deleteRow = this.db.prepare('DELETE FROM index_vectors WHERE id = ?');
        for (const orphan of orphans) {
          deleteVector.run(BigInt(orphan.id));
          deleteRow.run(orphan.id);
        }
        removedByModel.set(
          model.id,
          orphans.map((orphan) => orphan.id),
        );
        removed += orphans.length;
      }
      return removed;
    });
    const memory = VectorMemory.of(this.db);
    for (const [modelId, ids] of removedByModel) memory.removed(modelId, ids);
    return removed;
  }

  /**
   * Languages with a stemmer that notes of this index are written in (besides English, which
   * FTS5's porter tokenizer stems already), so a query can be stemmed the same way. Kept in
   * the settings table; a language whose notes were all deleted stays listed, which only adds
   * a few alternatives to queries.
   */
  stemLanguages(): Language[] {
    if (this.languages === undefined) {
      const row = this.db
        .prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?')
        .get(LANGUAGES_KEY);
      let parsed: unknown = [];
      try {
        parsed = row === undefined ? [] : JSON.parse(row.value);
      } catch {
        parsed = []; // Rewritten whole by the next note in a stemmed language.
      }
      this.languages = new Set(
        (Array.isArray(parsed) ? parsed : []).filter(
          (code): code is Language => typeof code === 'string' && hasStemmer(code as Language),
        ),
      );
    }
    return [...this.languages];
  }

  private rememberLanguage(language: Language): void {
    if (language === 'en' || !hasStemmer(language)) return;
    const known = new Set(this.stemLanguages());
    if (known.has(language)) return;
    known.add(language);
    this.db
      .prepare(
        `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(LANGUAGES_KEY, JSON.stringify([...known].sort()), this.now());
    this.languages = known;
  }

  private count(sql: string): number {
    return this.db.prepare<[], { n: number }>(sql).get()?.n ?? 0;
  }
}

const LANGUAGES_KEY = 'index_stem_languages';

/**
 * The FTS `text` column: the chunk's text with unspaced-script words spaced apart. (Appending
 * each non-English note's stems was measured and dropped: on obsidian-help-it it took
 * keyword nDCG@10 from 0.809 to 0.755, the stems matching too broadly; stems are OR-ed into
 * queries instead, see index-queries.ts.)
 */
export function ftsText(text: string): string {
  return spaceUnspacedWords(text);
}

/** The vec0 table holding one model's vectors. */
export function vectorTable(modelRowId: number): string {
  if (!Number.isSafeInteger(modelRowId) || modelRowId < 1) {
    throw new Error(`vector table: bad model row id ${modelRowId}`);
  }
  return `index_vec_${modelRowId}`;
}

/** The text a chunk is embedded as: the same parts its `textHash` is computed from. */
export function embeddingText(title: string, headingPath: readonly string[], text: string): string {
  return [title, ...headingPath, text].join('\n');
}

function checkVector(model: ModelRow, vector: Float32Array): void {
  if (!(vector instanceof Float32Array) || vector.length !== model.dims) {
    throw new Error(
      `embedding model ${model.model}: expected ${model.dims} dimensions, got ${(vector as Float32Array | undefined)?.length ?? 'no vector'}`,
    );
  }
  for (const value of vector) {
    if (!Number.isFinite(value)) {
      throw new Error(`embedding model ${model.model}: vector contains a non-finite value`);
    }
  }
}
