import { randomBytes } from 'node:crypto';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SYNC_SERVER_DEVICE } from '../../shared/protocol/sync';
import type { SyncChange } from '../../shared/protocol/sync';
import { inTransaction } from '../db/open';
import type { Logger } from '../logging';
import { resolveVaultPath } from '../vault/paths';
import type { BlobStore } from './blob-store';
import { Serial } from './serial';
import { isSyncablePath } from './syncable-path';
import { pathKey, toChange } from './sync-store';
import type { NewJournalEntry, SyncFileRow, SyncStore } from './sync-store';

/**
 * A vault file that changed on the companion's disk, as the vault change feed reports it
 * (companion/vault/). `hash` (SHA-256 hex of the bytes), `size` and `mtimeMs` are optional: what
 * is missing is read from the file.
 */
export interface DiskChange {
  readonly type: 'upsert' | 'delete';
  /** Vault-relative path. */
  readonly path: string;
  readonly hash?: string;
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** Where disk changes come from: the vault change feed the indexer also follows. */
export interface DiskChangeFeed {
  onChange(listener: (change: DiskChange) => void | Promise<void>): () => void;
}

/** A new `file_id`: 16 characters of base64url randomness. */
export function newFileId(): string {
  return randomBytes(12).toString('base64url');
}

interface Waiter {
  readonly since: number;
  readonly resolve: () => void;
}

/**
 * The journal (DESIGN §9): one `seq` per vault over every accepted change, whether a device
 * committed it or it happened on the companion's disk (device `server`). Everything that changes
 * the journal runs through `serial`, one at a time, so a commit's check of the current version
 * and its write are never interleaved with a disk change being recorded.
 */
export class SyncJournal {
  readonly serial = new Serial();
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(
    private readonly options: {
      readonly vault: string;
      readonly store: SyncStore;
      readonly blobs: BlobStore;
      readonly logger: Logger;
    },
  ) {}

  get store(): SyncStore {
    return this.options.store;
  }

  /** Appends entries in one transaction and wakes long polls. */
  append(entries: readonly NewJournalEntry[]): number[] {
    const seqs = inTransaction(this.store.db, () =>
      entries.map((entry) => this.store.append(entry)),
    );
    if (seqs.length > 0) this.wake();
    return seqs;
  }

  /** Runs `work` with the journal to itself (see `serial`). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.serial.run(work);
  }

  /**
   * Records a change on the companion's disk as a change of device `server`, unless the journal
   * already holds that version (the companion's own sync writes come back this way).
   */
  recordDiskChange(change: DiskChange): Promise<void> {
    if (!isSyncablePath(change.path)) return Promise.resolve();
    return this.serial.run(async () => {
      await this.catchUp(change.path, change);
    });
  }

  /** Follows a vault change feed; returns the unsubscribe function. */
  subscribe(feed: DiskChangeFeed): () => void {
    return feed.onChange((change) =>
      this.recordDiskChange(change).catch((error: unknown) => {
        this.options.logger.warn(
          { err: { message: (error as Error).message }, path: change.path },
          'sync: a change on disk could not be journalled; the next rescan retries',
        );
      }),
    );
  }

  /**
   * Brings the journal's view of `path` in line with the disk: a new or changed file becomes a
   * `put`, a file gone a `delete`. Call only inside `exclusive`/`serial`. Returns the live file
   * at the path afterwards.
   */
  async catchUp(path: string, hint?: DiskChange): Promise<SyncFileRow | undefined> {
    const resolved = await resolveVaultPath(this.options.vault, path, 'read');
    const known = this.store.liveAt(path);
    if (!resolved.ok) return known;
    if (!resolved.exists) {
      if (known !== undefined && pathKey(known.path) === pathKey(path)) {
        // Gone only if the vault itself is there and readable (a remounted disk is no delete).
        if (!(await this.vaultReadable())) return known;
        if (known.path !== path && (await this.existsExactly(known.path))) return known;
        this.append([
          {
            fileId: known.file_id,
            path: known.path,
            op: 'delete',
            hash: known.hash,
            size: known.size,
            mtime: known.mtime,
            device: SYNC_SERVER_DEVICE,
          },
        ]);
      }
      return undefined;
    }
    let info;
    try {
      info = await stat(resolved.absolute);
    } catch {
      return known;
    }
    if (!info.isFile()) return known;
    const disk = { mtime: Math.trunc(info.mtimeMs), size: info.size };
    const onDisk = resolved.relative;
    if (
      known !== undefined &&
      known.path === onDisk &&
      known.disk_mtime === disk.mtime &&
      known.disk_size === disk.size
    ) {
      return known;
    }
    if (known !== undefined && known.path === onDisk && hint?.hash === known.hash) {
      this.store.setDiskStat(known.file_id, disk);
      return known;
    }
    if (info.size > this.options.blobs.maxFileBytes) {
      this.options.logger.warn(
        { path: onDisk, size: info.size },
        'sync: a file over the per-file size limit is not synced',
      );
      return known;
    }
    const imported = await this.options.blobs.importFile(resolved.absolute);
    if (known !== undefined && known.path === onDisk && imported.hash === known.hash) {
      this.store.setDiskStat(known.file_id, disk);
      return this.store.file(known.file_id);
    }
    const entries: NewJournalEntry[] = [];
    let fileId = known?.file_id ?? newFileId();
    if (known !== undefined && known.path !== onDisk) {
      if (await this.existsExactly(known.path)) {
        // Two names differing only in case on a case-sensitive disk: devices cannot hold both.
        this.options.logger.warn(
          { path: onDisk, other: known.path },
          'sync: a file whose name differs only in case from a synced one is not synced',
        );
        return known;
      }
      // Renamed on disk in letter case only.
      entries.push({
        fileId,
        path: onDisk,
        op: 'rename',
        hash: known.hash,
        size: known.size,
        mtime: known.mtime,
        device: SYNC_SERVER_DEVICE,
        fromPath: known.path,
        disk: imported.hash === known.hash ? disk : null,
      });
      if (imported.hash === known.hash) {
        this.append(entries);
        return this.store.file(fileId);
      }
    }
    if (known === undefined) fileId = newFileId();
    entries.push({
      fileId,
      path: onDisk,
      op: 'put',
      hash: imported.hash,
      size: imported.size,
      mtime: disk.mtime,
      device: SYNC_SERVER_DEVICE,
      disk,
    });
    this.append(entries);
    return this.store.file(fileId);
  }

  /**
   * Compares the whole vault with the journal (on start, and after the feed may have missed
   * something): files new or changed since last seen are journalled, files gone are deleted,
   * only when the vault root is present and readable. Files whose size and time match what was
   * last seen are not read.
   */
  async rescan(): Promise<{ changed: number }> {
    if (!(await this.vaultReadable())) {
      this.options.logger.warn(
        { vault: this.options.vault },
        'sync: the vault folder is not readable; nothing is journalled as deleted',
      );
      return { changed: 0 };
    }
    const before = this.store.head();
    const seen = new Set<string>();
    const files = await listVaultFiles(this.options.vault);
    for (const file of files) {
      if (this.closed) break;
      seen.add(pathKey(file.path));
      const known = this.store.liveAt(file.path);
      if (
        known !== undefined &&
        known.path === file.path &&
        known.disk_mtime === file.mtime &&
        known.disk_size === file.size
      ) {
        continue;
      }
      await this.serial.run(() => this.catchUp(file.path));
    }
    if (this.closed) return { changed: this.store.head() - before };
    for (const file of this.store.liveFiles()) {
      if (!seen.has(file.path_key)) await this.serial.run(() => this.catchUp(file.path));
    }
    return { changed: this.store.head() - before };
  }

  /** Journal entries after `since` (see SyncChangesResponse); `since = 0` lists live files. */
  changes(since: number, limit: number): { changes: SyncChange[]; next: number; more: boolean } {
    const head = this.store.head();
    if (since === 0) {
      const rows = this.store.snapshotAfter(0, limit + 1);
      const page = rows.slice(0, limit);
      const more = rows.length > limit;
      const last = page.at(-1);
      return {
        changes: page.map((row) => ({
          seq: row.seq,
          file_id: row.file_id,
          path: row.path,
          op: 'put',
          hash: row.hash,
          size: row.size,
          mtime: row.mtime,
          device: this.deviceOf(row.seq),
        })),
        next: more && last !== undefined ? last.seq : head,
        more,
      };
    }
    const rows = this.store.entriesAfter(since, limit + 1);
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    const last = page.at(-1);
    return {
      changes: page.map(toChange),
      next: last !== undefined ? last.seq : Math.max(since, head),
      more,
    };
  }

  /**
   * Resolves when the journal has something after `since`, after `timeoutMs`, or when the
   * journal closes, whichever comes first.
   */
  waitForChange(since: number, timeoutMs: number): Promise<void> {
    if (this.closed || this.store.head() > since || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        since,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Ends every long poll now (app close) and answers later ones at once. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.resolve();
  }

  private wake(): void {
    const head = this.store.head();
    for (const waiter of [...this.waiters]) if (head > waiter.since) waiter.resolve();
  }

  private deviceOf(seq: number): string {
    const row = this.store.db.prepare('SELECT device FROM sync_journal WHERE seq = ?').get(seq) as
      { device: string } | undefined;
    return row?.device ?? SYNC_SERVER_DEVICE;
  }

  private async vaultReadable(): Promise<boolean> {
    try {
      await readdir(this.options.vault);
      return true;
    } catch {
      return false;
    }
  }

  private async existsExactly(path: string): Promise<boolean> {
    const slash = path.lastIndexOf('/');
    const folder = join(this.options.vault, slash < 0 ? '' : path.slice(0, slash));
    try {
      return (await readdir(folder)).includes(path.slice(slash + 1));
    } catch {
      return false;
    }
  }
}

/** Every syncable regular file of the vault with its size and time; symlinks are not followed. */
async function listVaultFiles(
  vault: string,
): Promise<Array<{ path: string; size: number; mtime: number }>> {
  const root = await realpath(vault);
  const found: Array<{ path: string; size: number; mtime: number }> = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(join(root, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (!isSyncablePath(relative)) continue;
      if (entry.isDirectory()) pending.push(relative);
      else if (entry.isFile()) {
        try {
          const info = await lstat(join(root, relative));
          found.push({
            path: relative.normalize('NFC'),
            size: info.size,
            mtime: Math.trunc(info.mtimeMs),
          });
        } catch {
          // Gone meanwhile.
        }
      }
    }
  }
  return found;
}
