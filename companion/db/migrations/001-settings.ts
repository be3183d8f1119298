import type { Migration } from '../migrate';

/** Small key/value facts about this data directory (which vault it serves, when it was created). */
export const settingsTable: Migration = {
  version: 1,
  name: 'settings table',
  up: `
    CREATE TABLE settings (
      key        TEXT PRIMARY KEY NOT NULL,
      value      TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
  `,
};
