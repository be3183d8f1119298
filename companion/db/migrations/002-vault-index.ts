import type { Migration } from '../migrate';

/**
 * The vault index: derived data, rebuilt from the vault at any time (docs/principles.md).
 *
 * - `index_files`: one row per vault file seen, indexed or failed. `content_hash` (sha256 of
 *   the bytes) lets a restart skip unchanged files; `error` holds why a file could not be
 *   indexed (it then has no chunks, or only what could be salvaged), `warnings` what was
 *   salvaged around (broken front matter, invalid UTF-8), as a JSON array.
 * - `index_file_tags`: lowercased tags for the `tag` filter (one row per tag, so the filter is
 *   an indexed lookup instead of JSON scanning).
 * - `index_chunks`: the units of search with their locators; `text_hash` is shared/search's
 *   hash of the embedding input, the key vectors are stored under.
 * - `index_chunks_fts`: FTS5 over title, aliases, headings and text, rowid = chunk id.
 *   Contentless (the text already lives in `index_chunks`), with `contentless_delete` so rows
 *   can be removed by rowid. `remove_diacritics 2` makes "cafe" find "café"; prefix indexes
 *   make the prefix queries the search box sends cheap. Porter stemming (English) measured
 *   with `npm run eval -- --engine companion-keyword`: Cranfield nDCG@10 0.517 → 0.534,
 *   Recall@10 0.436 → 0.460; obsidian-help-en nDCG@10 0.655 → 0.658, MRR 0.706 → 0.727
 *   (Recall@10 0.711 → 0.685), so it is on.
 * - `index_embedding_models` / `index_vectors`: which (model, text_hash) pairs have a vector.
 *   The vectors themselves live in one sqlite-vec `vec0` table per model
 *   (`index_vec_<model row id>`, rowid = `index_vectors.id`), created at run time because the
 *   extension is loaded by the indexer, not by migrations. One table per model means a model
 *   change can never mix dimensions, and keying by text hash means a restart or a rename
 *   re-embeds nothing.
 */
export const vaultIndex: Migration = {
  version: 2,
  name: 'vault-index',
  up: `
    CREATE TABLE index_files (
      id           INTEGER PRIMARY KEY,
      path         TEXT NOT NULL UNIQUE,
      kind         TEXT NOT NULL CHECK (kind IN ('note', 'reminder', 'pdf')),
      note_id      TEXT,
      title        TEXT NOT NULL,
      tags         TEXT NOT NULL DEFAULT '[]',
      aliases      TEXT NOT NULL DEFAULT '[]',
      mtime_ms     INTEGER NOT NULL,
      created_ms   INTEGER,
      size         INTEGER NOT NULL,
      content_hash TEXT NOT NULL,
      indexed_at   INTEGER NOT NULL,
      error        TEXT,
      warnings     TEXT NOT NULL DEFAULT '[]'
    ) STRICT;
    CREATE INDEX index_files_error ON index_files(error) WHERE error IS NOT NULL;

    CREATE TABLE index_file_tags (
      file_id INTEGER NOT NULL REFERENCES index_files(id) ON DELETE CASCADE,
      tag     TEXT NOT NULL,
      PRIMARY KEY (file_id, tag)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX index_file_tags_tag ON index_file_tags(tag);

    CREATE TABLE index_chunks (
      id           INTEGER PRIMARY KEY,
      file_id      INTEGER NOT NULL REFERENCES index_files(id) ON DELETE CASCADE,
      ordinal      INTEGER NOT NULL,
      chunk_key    TEXT NOT NULL,
      heading_path TEXT NOT NULL DEFAULT '[]',
      start_line   INTEGER,
      end_line     INTEGER,
      page         INTEGER,
      text         TEXT NOT NULL,
      text_hash    TEXT NOT NULL
    ) STRICT;
    CREATE INDEX index_chunks_file ON index_chunks(file_id, ordinal);
    CREATE INDEX index_chunks_hash ON index_chunks(text_hash);

    CREATE VIRTUAL TABLE index_chunks_fts USING fts5(
      title, aliases, headings, text,
      content = '',
      contentless_delete = 1,
      tokenize = 'porter unicode61 remove_diacritics 2',
      prefix = '2 3'
    );

    CREATE TABLE index_embedding_models (
      id         INTEGER PRIMARY KEY,
      model      TEXT NOT NULL UNIQUE,
      dims       INTEGER NOT NULL CHECK (dims > 0),
      created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE index_vectors (
      id         INTEGER PRIMARY KEY,
      model_id   INTEGER NOT NULL REFERENCES index_embedding_models(id) ON DELETE CASCADE,
      text_hash  TEXT NOT NULL,
      dims       INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (model_id, text_hash)
    ) STRICT;
  `,
};
