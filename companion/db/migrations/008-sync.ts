import type { Migration } from '../migrate';

/*
 * Cairn Sync (DESIGN §9, docs/sync.md): the companion is the vault's sync server.
 *
 * - `sync_journal`: every accepted change, one increasing `seq` for the vault (one database
 *   serves one vault). Rows are never deleted: `GET changes?since=` pages through them. A row's
 *   bytes may be pruned from the blob store (history), the row stays.
 * - `sync_files`: each file's current state by `file_id` (stable across renames); deleted files
 *   stay with `deleted = 1` (the trash). `path_key` (NFC, lower case) finds a path the way a
 *   case-insensitive device sees it: two live files never share one.
 *   `disk_mtime`/`disk_size` are what the companion last saw on its own disk, so a rescan reads
 *   only files whose size or time changed.
 * - `sync_blobs`: the content-addressed versions held in `<data>/sync-blobs/`.
 * - `sync_devices`: devices by name; `last_seq` is the `since` they last read changes with.
 *   `sync_device_bases`: the version of each file a device last committed or was handed by a
 *   commit (its base); neither is pruned while the device holds it.
 * - `sync_holds`: batches held by the mass-delete guard until `confirm`.
 * - `sync_commits`: each commit's answer, so a retry is answered again instead of re-applied.
 *   `touched` lists the (file_id, seq) the commit produced (JSON).
 */
export const syncTables: Migration = {
  version: 8,
  name: 'sync',
  up: `
    CREATE TABLE sync_journal (
      seq        INTEGER PRIMARY KEY AUTOINCREMENT,
      file_id    TEXT NOT NULL,
      path       TEXT NOT NULL,
      op         TEXT NOT NULL CHECK (op IN ('put', 'delete', 'rename')),
      hash       TEXT NOT NULL,
      size       INTEGER NOT NULL,
      mtime      INTEGER NOT NULL,
      device     TEXT NOT NULL,
      time       INTEGER NOT NULL,
      from_path  TEXT
    ) STRICT;
    CREATE INDEX sync_journal_file ON sync_journal (file_id, seq);
    CREATE INDEX sync_journal_hash ON sync_journal (hash);

    CREATE TABLE sync_files (
      file_id     TEXT PRIMARY KEY NOT NULL,
      path        TEXT NOT NULL,
      path_key    TEXT NOT NULL,
      hash        TEXT NOT NULL,
      size        INTEGER NOT NULL,
      mtime       INTEGER NOT NULL,
      deleted     INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
      seq         INTEGER NOT NULL,
      disk_mtime  INTEGER,
      disk_size   INTEGER
    ) STRICT;
    CREATE UNIQUE INDEX sync_files_live_path ON sync_files (path_key) WHERE deleted = 0;
    CREATE INDEX sync_files_seq ON sync_files (deleted, seq);

    CREATE TABLE sync_blobs (
      hash       TEXT PRIMARY KEY NOT NULL,
      size       INTEGER NOT NULL,
      stored_at  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE sync_devices (
      name       TEXT PRIMARY KEY NOT NULL,
      last_seq   INTEGER NOT NULL DEFAULT 0,
      last_seen  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE sync_device_bases (
      device   TEXT NOT NULL REFERENCES sync_devices (name) ON DELETE CASCADE,
      file_id  TEXT NOT NULL,
      hash     TEXT NOT NULL,
      PRIMARY KEY (device, file_id)
    ) STRICT;

    CREATE TABLE sync_holds (
      id          TEXT PRIMARY KEY NOT NULL,
      device      TEXT NOT NULL,
      request     TEXT NOT NULL,
      created_at  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE sync_commits (
      device      TEXT NOT NULL,
      commit_key  TEXT NOT NULL,
      results     TEXT NOT NULL,
      touched     TEXT NOT NULL,
      created_at  INTEGER NOT NULL,
      PRIMARY KEY (device, commit_key)
    ) STRICT;
    CREATE INDEX sync_commits_age ON sync_commits (created_at);
  `,
};
