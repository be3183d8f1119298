import type { SyncChange, SyncOpKind } from '../../shared/protocol/sync';
import type { SqliteDatabase } from '../db/open';
import { PreparedStatements } from '../db/statements';

/*
 * The sync tables (db/migrations/008-sync.ts) behind one small API: the journal, the current
 * files, devices and their bases, holds and stored commit answers. Callers group writes into
 * one transaction (`inTransaction`) per unit of work.
 */

export interface SyncFileRow {
  readonly file_id: string;
  readonly path: string;
  readonly path_key: string;
  readonly hash: string;
  readonly size: number;
  readonly mtime: number;
  readonly deleted: 0 | 1;
  readonly seq: number;
  readonly disk_mtime: number | null;
  readonly disk_size: number | null;
}

export interface JournalRow {
  readonly seq: number;
  readonly file_id: string;
  readonly path: string;
  readonly op: SyncOpKind;
  readonly hash: string;
  readonly size: number;
  readonly mtime: number;
  readonly device: string;
  readonly time: number;
  readonly from_path: string | null;
}

export interface NewJournalEntry {
  readonly fileId: string;
  readonly path: string;
  readonly op: SyncOpKind;
  readonly hash: string;
  readonly size: number;
  readonly mtime: number;
  readonly device: string;
  readonly fromPath?: string;
  /** What the companion's disk holds after the change, when known (rescans skip the read). */
  readonly disk?: { readonly mtime: number; readonly size: number } | null;
}

/** How a path is compared: NFC and lower case, as a case-insensitive device sees it. */
export function pathKey(path: string): string {
  return path.normalize('NFC').toLocaleLowerCase('en-US');
}

export class SyncStore {
  private readonly statements: PreparedStatements;

  constructor(
    readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.statements = new PreparedStatements(db);
  }

  head(): number {
    const row = this.statements.prepare('SELECT MAX(seq) AS seq FROM sync_journal').get() as {
      seq: number | null;
    };
    return row.seq ?? 0;
  }

  file(fileId: string): SyncFileRow | undefined {
    return this.statements.prepare('SELECT * FROM sync_files WHERE file_id = ?').get(fileId) as
      SyncFileRow | undefined;
  }

  /** The live file at `path`, compared case-insensitively. */
  liveAt(path: string): SyncFileRow | undefined {
    return this.statements
      .prepare('SELECT * FROM sync_files WHERE path_key = ? AND deleted = 0')
      .get(pathKey(path)) as SyncFileRow | undefined;
  }

  liveFiles(): SyncFileRow[] {
    return this.statements
      .prepare('SELECT * FROM sync_files WHERE deleted = 0')
      .all() as SyncFileRow[];
  }

  liveCount(): number {
    return (
      this.statements.prepare('SELECT COUNT(*) AS n FROM sync_files WHERE deleted = 0').get() as {
        n: number;
      }
    ).n;
  }

  /** Appends a journal entry and moves the file's current state to it; returns the seq. */
  append(entry: NewJournalEntry): number {
    const time = this.now();
    const seq = Number(
      this.statements
        .prepare(
          `INSERT INTO sync_journal (file_id, path, op, hash, size, mtime, device, time, from_path)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          entry.fileId,
          entry.path,
          entry.op,
          entry.hash,
          entry.size,
          entry.mtime,
          entry.device,
          time,
          entry.fromPath ?? null,
        ).lastInsertRowid,
    );
    const deleted = entry.op === 'delete' ? 1 : 0;
    const disk = entry.op === 'delete' ? null : (entry.disk ?? null);
    this.statements
      .prepare(
        `INSERT INTO sync_files (file_id, path, path_key, hash, size, mtime, deleted, seq, disk_mtime, disk_size)
         VALUES (@file_id, @path, @path_key, @hash, @size, @mtime, @deleted, @seq, @disk_mtime, @disk_size)
         ON CONFLICT (file_id) DO UPDATE SET path = @path, path_key = @path_key, hash = @hash,
           size = @size, mtime = @mtime, deleted = @deleted, seq = @seq,
           disk_mtime = @disk_mtime, disk_size = @disk_size`,
      )
      .run({
        file_id: entry.fileId,
        path: entry.path,
        path_key: pathKey(entry.path),
        hash: entry.hash,
        size: entry.size,
        mtime: entry.mtime,
        deleted,
        seq,
        disk_mtime: disk?.mtime ?? null,
        disk_size: disk?.size ?? null,
      });
    return seq;
  }

  /** Records what the disk holds for a file whose content is already journalled. */
  setDiskStat(fileId: string, disk: { mtime: number; size: number } | null): void {
    this.statements
      .prepare('UPDATE sync_files SET disk_mtime = ?, disk_size = ? WHERE file_id = ?')
      .run(disk?.mtime ?? null, disk?.size ?? null, fileId);
  }

  /** Journal entries after `since`, oldest first. */
  entriesAfter(since: number, limit: number): JournalRow[] {
    return this.statements
      .prepare('SELECT * FROM sync_journal WHERE seq > ? ORDER BY seq LIMIT ?')
      .all(since, limit) as JournalRow[];
  }

  /** The live files at their latest seq (with who made it), after `afterSeq`, in seq order. */
  snapshotAfter(afterSeq: number, limit: number): Array<SyncFileRow & { device: string }> {
    return this.statements
      .prepare(
        `SELECT f.*, j.device AS device FROM sync_files f JOIN sync_journal j ON j.seq = f.seq
          WHERE f.deleted = 0 AND f.seq > ? ORDER BY f.seq LIMIT ?`,
      )
      .all(afterSeq, limit) as Array<SyncFileRow & { device: string }>;
  }

  /** A file's versions, newest first. */
  versions(fileId: string): JournalRow[] {
    return this.statements
      .prepare(
        `SELECT j.* FROM sync_journal j JOIN sync_blobs b ON b.hash = j.hash
          WHERE j.file_id = ? AND j.op != 'delete' ORDER BY j.seq DESC`,
      )
      .all(fileId) as JournalRow[];
  }

  /** Any file (live or deleted) that was ever at `path`, the most recent first. */
  fileEverAt(path: string): SyncFileRow | undefined {
    const live = this.liveAt(path);
    if (live) return live;
    const row = this.statements
      .prepare('SELECT file_id FROM sync_journal WHERE path = ? ORDER BY seq DESC LIMIT 1')
      .get(path) as { file_id: string } | undefined;
    return row ? this.file(row.file_id) : undefined;
  }

  /** Deleted files whose last version is held, most recently deleted first. */
  trash(beforeSeq: number, limit: number): Array<SyncFileRow & { time: number; device: string }> {
    return this.statements
      .prepare(
        `SELECT f.*, j.time AS time, j.device AS device FROM sync_files f
           JOIN sync_journal j ON j.seq = f.seq
           JOIN sync_blobs b ON b.hash = f.hash
          WHERE f.deleted = 1 AND f.seq < ? ORDER BY f.seq DESC LIMIT ?`,
      )
      .all(beforeSeq, limit) as Array<SyncFileRow & { time: number; device: string }>;
  }

  // --- devices -------------------------------------------------------------------------------

  touchDevice(name: string, lastSeq?: number): void {
    this.statements
      .prepare(
        `INSERT INTO sync_devices (name, last_seq, last_seen) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen,
           last_seq = MAX(sync_devices.last_seq, excluded.last_seq)`,
      )
      .run(name, lastSeq ?? 0, this.now());
  }

  /** The device must exist (`touchDevice`). */
  setDeviceBase(device: string, fileId: string, hash: string): void {
    this.statements
      .prepare(
        `INSERT INTO sync_device_bases (device, file_id, hash) VALUES (?, ?, ?)
         ON CONFLICT (device, file_id) DO UPDATE SET hash = excluded.hash`,
      )
      .run(device, fileId, hash);
  }

  clearDeviceBase(device: string, fileId: string): void {
    this.statements
      .prepare('DELETE FROM sync_device_bases WHERE device = ? AND file_id = ?')
      .run(device, fileId);
  }

  /** Unpairing: the device's bases stop protecting versions. */
  forgetDevice(name: string): void {
    this.statements.prepare('DELETE FROM sync_devices WHERE name = ?').run(name);
  }

  /**
   * Hashes some paired device may still hold as a merge base: those recorded from its commits,
   * and each file's version as of the `since` it last read changes with.
   */
  heldBases(): Set<string> {
    const held = new Set<string>();
    for (const row of this.statements.prepare('SELECT hash FROM sync_device_bases').all() as Array<{
      hash: string;
    }>) {
      held.add(row.hash);
    }
    const rows = this.statements
      .prepare(
        `SELECT j.hash FROM sync_devices d
           JOIN sync_journal j ON j.seq = (
             SELECT MAX(k.seq) FROM sync_journal k WHERE k.file_id = j.file_id AND k.seq <= d.last_seq)
          WHERE d.last_seq > 0`,
      )
      .all() as Array<{ hash: string }>;
    for (const row of rows) held.add(row.hash);
    return held;
  }

  // --- holds and stored answers -------------------------------------------------------------

  addHold(id: string, device: string, request: string): void {
    this.statements
      .prepare('INSERT INTO sync_holds (id, device, request, created_at) VALUES (?, ?, ?, ?)')
      .run(id, device, request, this.now());
  }

  hold(id: string): { id: string; device: string; request: string } | undefined {
    return this.statements
      .prepare('SELECT id, device, request FROM sync_holds WHERE id = ?')
      .get(id) as { id: string; device: string; request: string } | undefined;
  }

  removeHold(id: string): void {
    this.statements.prepare('DELETE FROM sync_holds WHERE id = ?').run(id);
  }

  storedCommit(device: string, key: string): { results: string; touched: string } | undefined {
    return this.statements
      .prepare('SELECT results, touched FROM sync_commits WHERE device = ? AND commit_key = ?')
      .get(device, key) as { results: string; touched: string } | undefined;
  }

  storeCommit(device: string, key: string, results: string, touched: string): void {
    this.statements
      .prepare(
        `INSERT INTO sync_commits (device, commit_key, results, touched, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (device, commit_key) DO UPDATE SET results = excluded.results,
           touched = excluded.touched, created_at = excluded.created_at`,
      )
      .run(device, key, results, touched, this.now());
  }

  pruneCommits(olderThan: number): number {
    return this.statements.prepare('DELETE FROM sync_commits WHERE created_at < ?').run(olderThan)
      .changes;
  }
}

export function toChange(row: JournalRow): SyncChange {
  return {
    seq: row.seq,
    file_id: row.file_id,
    path: row.path,
    op: row.op,
    hash: row.hash,
    size: row.size,
    mtime: row.mtime,
    device: row.device,
    ...(row.from_path === null ? {} : { from_path: row.from_path }),
  };
}
