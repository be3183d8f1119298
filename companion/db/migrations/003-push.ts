import type { Migration } from '../migrate';

/*
 * Web Push subscriptions, one row per device. The VAPID key pair is not here but in a 0600 file
 * in the data folder (push/vapid-keys.ts): a database gets copied for debugging or backups more
 * casually than a key file, and the private key signs for every device.
 *
 * `endpoint` is unique: a browser that subscribes again (new keys after a reinstall, or the same
 * subscription re-sent) updates its row instead of adding a second device that would get every
 * reminder twice. Times are Unix milliseconds.
 */
export const pushTables: Migration = {
  version: 3,
  name: 'push',
  up: `
    CREATE TABLE push_subscriptions (
      id              TEXT PRIMARY KEY NOT NULL,
      endpoint        TEXT NOT NULL UNIQUE,
      p256dh          TEXT NOT NULL,
      auth            TEXT NOT NULL,
      name            TEXT,
      created_at      INTEGER NOT NULL,
      updated_at      INTEGER NOT NULL,
      last_success_at INTEGER,
      last_failure_at INTEGER,
      last_failure    TEXT
    ) STRICT;
  `,
};
