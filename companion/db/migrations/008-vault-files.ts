import type { Migration } from '../migrate';

/*
 * What the vault change feed (vault/change-feed.ts) last saw of each file: a restart compares
 * the disk with it and reads only files whose time or size moved, and reports files that went
 * while the companion was down as deleted. Derived from the vault: deleting the rows costs one
 * read of every file, nothing else.
 */
export const vaultFiles: Migration = {
  version: 8,
  name: 'vault-files',
  up: `
    CREATE TABLE vault_files (
      path     TEXT PRIMARY KEY NOT NULL,
      kind     TEXT NOT NULL CHECK (kind IN ('markdown', 'text', 'pdf', 'other')),
      hash     TEXT NOT NULL,
      size     INTEGER NOT NULL,
      mtime_ms INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
  `,
};
