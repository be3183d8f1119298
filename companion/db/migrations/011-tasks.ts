import type { Migration } from '../migrate';

/**
 * Scheduled tasks (docs/tasks.md). The tasks themselves are Markdown files in the vault; what
 * lives here is what the vault cannot hold:
 *
 * - `task_plan`, `task_claims`, `task_missed`, `task_actions`, `task_completions`,
 *   `task_scheduler_meta`: the durable scheduler's state (the reminders' design, migration 004,
 *   under its own names: one claim per task and slot, taken in a committed transaction before the
 *   task runs; high-water marks; the missed list). `task_actions` and `task_completions` stay
 *   empty (tasks are not snoozed or ticked off) but the scheduler's statements name them.
 * - `task_runs`: the run history, one row per task and slot: when it started and ended, its
 *   status (`running` while it runs; `succeeded`, `failed` with the reason, `skipped` with why),
 *   where its output went, its first line, and when its push went out (a run repeated after
 *   a crash does not push twice).
 */
export const taskTables: Migration = {
  version: 11,
  name: 'tasks',
  up: `
    CREATE TABLE task_plan (
      reminder_id TEXT PRIMARY KEY NOT NULL,
      high_water  INTEGER NOT NULL,
      first_seen  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE task_claims (
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
    CREATE INDEX task_claims_pending ON task_claims (next_attempt_at)
      WHERE state IN ('claimed', 'retry');

    CREATE TABLE task_actions (
      reminder_id   TEXT NOT NULL,
      occurrence    INTEGER NOT NULL,
      action        TEXT NOT NULL CHECK (action IN ('done', 'snoozed')),
      snoozed_until INTEGER,
      created_at    INTEGER NOT NULL,
      PRIMARY KEY (reminder_id, occurrence)
    ) STRICT;

    CREATE TABLE task_missed (
      reminder_id TEXT NOT NULL,
      occurrence  INTEGER NOT NULL,
      title       TEXT NOT NULL,
      path        TEXT NOT NULL,
      line        INTEGER,
      zone        TEXT NOT NULL,
      recorded_at INTEGER NOT NULL,
      reason      TEXT NOT NULL DEFAULT 'expired' CHECK (reason IN ('expired', 'past_due')),
      PRIMARY KEY (reminder_id, occurrence)
    ) STRICT;

    CREATE TABLE task_completions (
      reminder_id  TEXT NOT NULL,
      occurrence   INTEGER NOT NULL,
      completed_at INTEGER NOT NULL,
      title        TEXT NOT NULL,
      path         TEXT NOT NULL,
      line         INTEGER,
      PRIMARY KEY (reminder_id, occurrence)
    ) STRICT;

    CREATE TABLE task_scheduler_meta (
      key   TEXT PRIMARY KEY NOT NULL,
      value INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE task_runs (
      task_id     TEXT NOT NULL,
      slot        INTEGER NOT NULL,
      started_at  INTEGER NOT NULL,
      finished_at INTEGER,
      status      TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
      reason      TEXT,
      output_path TEXT,
      summary     TEXT,
      pushed_at   INTEGER,
      PRIMARY KEY (task_id, slot)
    ) STRICT;
    CREATE INDEX task_runs_by_start ON task_runs (task_id, started_at DESC);
  `,
};
