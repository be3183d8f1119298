import type { Migration } from '../migrate';

/*
 * Decisions found in notes when they are indexed (shared/search/decisions.ts): ADR files,
 * `Decision:`/`Agreed:`/`Rejected:` lines, "we decided to …" sentences. Derived data like the
 * rest of the index: they go with their file (ON DELETE CASCADE) and are rebuilt from the vault.
 */
export const decisionsTable: Migration = {
  version: 14,
  name: 'decisions',
  up: `
    CREATE TABLE index_decisions (
      id         INTEGER PRIMARY KEY,
      file_id    INTEGER NOT NULL REFERENCES index_files(id) ON DELETE CASCADE,
      ordinal    INTEGER NOT NULL,
      text       TEXT NOT NULL,
      rejected   TEXT NOT NULL,
      kind       TEXT NOT NULL,
      status     TEXT,
      date       TEXT,
      heading    TEXT,
      start_line INTEGER NOT NULL,
      end_line   INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX index_decisions_file ON index_decisions(file_id);
  `,
};
