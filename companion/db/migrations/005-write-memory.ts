import type { Migration } from '../migrate';

/*
 * The companion's memory of recent writes (companion/idempotency/), so a retried request is
 * answered with what the first one did, across restarts:
 * - `idem:<Idempotency-Key header>` rows keep a write's response for 24 hours, with a hash of
 *   the request (method, path, body) so a key reused for a different request is refused;
 * - `dedup:<kind>:<content hash>` rows keep, for five minutes, what an identical create
 *   (same title and due, same title and body) made (docs/chat.md), chat's included.
 * Times are Unix milliseconds; rows past `expires_at` are ignored and pruned.
 *
 * Also: `missed_occurrences.reason`, so a one-off that was already past when the companion
 * first saw it (`past_due`, never fired) is told apart from one missed while it was down
 * (`expired`, older than the grace window).
 */
export const writeMemoryTable: Migration = {
  version: 5,
  name: 'write-memory-and-missed-reason',
  up: `
    CREATE TABLE write_memory (
      key          TEXT PRIMARY KEY NOT NULL,
      request_hash TEXT NOT NULL,
      status       INTEGER NOT NULL,
      response     TEXT NOT NULL,
      created_at   INTEGER NOT NULL,
      expires_at   INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX write_memory_expiry ON write_memory (expires_at);

    ALTER TABLE missed_occurrences ADD COLUMN reason TEXT NOT NULL DEFAULT 'expired'
      CHECK (reason IN ('expired', 'past_due'));
  `,
};
