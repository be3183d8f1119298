import type { Migration } from '../migrate';

/*
 * Weekly digests written (docs/memory-digest-calendar.md): one row per ISO week, so a digest is written once per
 * week across restarts and downtime, and not again when the user deletes or moves the note.
 * `announced_at` is set once the push announcing it went out (a crash in between re-announces:
 * at least once, like reminders).
 *
 * IF NOT EXISTS: companion/digest/digest-store.ts runs the same statement, so a database that
 * got the table before this step was registered (branch i15) migrates cleanly.
 */
export const DIGEST_TABLES_SQL = `
  CREATE TABLE IF NOT EXISTS digest_weeks (
    week         TEXT PRIMARY KEY NOT NULL,
    -- 'written' by Cairn (or found already there); 'baseline': due before the companion's
    -- first start with digests on, so not written (the first start writes nothing from before it).
    status       TEXT NOT NULL DEFAULT 'written' CHECK (status IN ('written', 'baseline')),
    path         TEXT NOT NULL,
    written_at   INTEGER NOT NULL,
    announced_at INTEGER
  ) STRICT;
`;

export const digestTables: Migration = {
  version: 7,
  name: 'digests',
  up: DIGEST_TABLES_SQL,
};
