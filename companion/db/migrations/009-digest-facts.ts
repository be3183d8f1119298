import type { Migration } from '../migrate';

/*
 * What the weekly digest counts (docs/memory-digest-calendar.md), recorded as it happens:
 * - `index_files.content_changed_ms`: when the indexer last saw the note's *content* (its
 *   sha256) change. Null for a note first seen by the very first index build (a copied or
 *   restored vault is not a week of edits) and kept across touches that change only the mtime.
 * - `reminder_completions`: one row per occurrence someone marked done, with when: from the
 *   API, chat, phone, notification and plugin (ReminderService), and a `- [x]` or
 *   `status: done` the scheduler sees appear in the vault while it runs.
 */
export const digestFacts: Migration = {
  version: 9,
  name: 'digest facts',
  up: `
    ALTER TABLE index_files ADD COLUMN content_changed_ms INTEGER;
    CREATE TABLE reminder_completions (
      reminder_id  TEXT NOT NULL,
      occurrence   INTEGER NOT NULL,
      completed_at INTEGER NOT NULL,
      title        TEXT NOT NULL,
      path         TEXT NOT NULL,
      line         INTEGER,
      PRIMARY KEY (reminder_id, occurrence)
    ) STRICT;
    CREATE INDEX reminder_completions_at ON reminder_completions(completed_at);
  `,
};
