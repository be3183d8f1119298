import type { Migration } from '../migrate';

/**
 * The scheduler's own state: the only reminder data that is not derived from the vault
 * (docs/principles.md). Instants are epoch milliseconds.
 *
 * - `reminder_plan`: per reminder, the high-water mark: every fire time at or before it has
 *   been handled (handed to delivery, or listed as missed). Kept when a reminder disappears from
 *   the vault, so a note that is moved away and back does not fire its past again.
 * - `deliveries`: the delivery log, one row per (reminder, occurrence, device). The row is
 *   written (`claimed`) before the message is sent and marked `sent` after; a `sent` row is
 *   never sent again. The payload is stored so a retry after a restart sends the same message
 *   even if the note changed or vanished meanwhile.
 * - `occurrence_actions`: done/snooze of one occurrence (of a recurring reminder, mostly).
 * - `missed_occurrences`: occurrences older than the grace window when the companion came back.
 * - `scheduler_meta`: when the scheduler first ran on this database and when it was last alive.
 */
export const reminderTables: Migration = {
  version: 4,
  name: 'reminders',
  up: `
    CREATE TABLE reminder_plan (
      reminder_id TEXT PRIMARY KEY NOT NULL,
      high_water  INTEGER NOT NULL,
      first_seen  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE deliveries (
      reminder_id     TEXT NOT NULL,
      occurrence      INTEGER NOT NULL,
      device_id       TEXT NOT NULL,
      state           TEXT NOT NULL CHECK (state IN ('claimed', 'retry', 'sent', 'failed', 'gone')),
      attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      claimed_at      INTEGER NOT NULL,
      next_attempt_at INTEGER,
      updated_at      INTEGER NOT NULL,
      ttl_seconds     INTEGER NOT NULL,
      topic           TEXT NOT NULL,
      payload         TEXT NOT NULL,
      error           TEXT,
      PRIMARY KEY (reminder_id, occurrence, device_id)
    ) STRICT;
    CREATE INDEX deliveries_pending ON deliveries (next_attempt_at)
      WHERE state IN ('claimed', 'retry');

    CREATE TABLE occurrence_actions (
      reminder_id   TEXT NOT NULL,
      occurrence    INTEGER NOT NULL,
      action        TEXT NOT NULL CHECK (action IN ('done', 'snoozed')),
      snoozed_until INTEGER,
      created_at    INTEGER NOT NULL,
      PRIMARY KEY (reminder_id, occurrence),
      CHECK ((action = 'snoozed') = (snoozed_until IS NOT NULL))
    ) STRICT;

    CREATE TABLE missed_occurrences (
      reminder_id TEXT NOT NULL,
      occurrence  INTEGER NOT NULL,
      title       TEXT NOT NULL,
      path        TEXT NOT NULL,
      line        INTEGER,
      zone        TEXT NOT NULL,
      recorded_at INTEGER NOT NULL,
      PRIMARY KEY (reminder_id, occurrence)
    ) STRICT;
    CREATE INDEX missed_by_occurrence ON missed_occurrences (occurrence DESC, reminder_id);

    CREATE TABLE scheduler_meta (
      key   TEXT PRIMARY KEY NOT NULL,
      value INTEGER NOT NULL
    ) STRICT;
  `,
};
