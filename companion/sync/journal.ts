import { randomBytes } from 'node:crypto';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SYNC_SERVER_DEVICE } from '../../shared/protocol/sync';
import type { SyncChange } from '../../shared/protocol/sync';
import { inTransaction } from '../db/open';
import type { Logger } from '../logging';
import { resolveVaultPath } from '../vault/paths';
import type { VaultChangeFeed, VaultChangeSubscriber, VaultFileState } from '../vault/vault-change';
import type { BlobStore } from './blob-store';
import { Serial } from './serial';
import { withSettingsPaths } from '../vault/settings-paths';
import { isSettingsPath, isSyncableFolder, isSyncablePath } from './syncable-path';
import { pathKey, toChange } from './sync-store';
import type { NewJournalEntry, SyncFileRow, SyncStore } from './sync-store';

/**
 * A vault file that changed on the companion's disk: a `VaultChange` of the vault change feed
 * (vault/vault-change.ts), or only a type and path (what is missing is read from the file).
 */
export interface DiskChange {
  readonly type: 'upsert' | 'delete';
  /** Vault-relative path. */
  readonly path: string;
  /** SHA-256 hex of the bytes, as the feed read them. */
  readonly hash?: string;
  readonly size?: number;
  readonly mtimeMs?: number;
  /** The bytes, when the feed passes them (it does up to 64 MB). */
  readonly bytes?: Buffer | null;
}

/** A new `file_id`: 16 characters of base64url randomness. */
export function newFileId(): string {
  return randomBytes(12).toString('base64url');
}

/** Files a rescan reads before journalling them in one transaction. */
const RESCAN_BATCH = 256;

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
    // Sync's own vault work may touch the synced settings files (and nothing else does).
    return this.serial.run(() => withSettingsPaths(work));
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

  /** Follows the vault change feed (every kind of file); returns the unsubscribe function. */
  subscribe(feed: VaultChangeFeed): () => void {
    const subscriber: VaultChangeSubscriber = {
      name: 'sync',
      onChange: async (change) => {
        if (change.type === 'refused') return;
        try {
          await this.recordDiskChange(change);
        } catch (error) {
          this.options.logger.warn(
            { err: { message: (error as Error).message }, path: change.path },
            'sync: a change on disk could not be journalled; the next rescan retries',
          );
        }
      },
      reconcile: (files) => this.reconcile(files),
    };
    return feed.subscribe(subscriber);
  }

  /**
   * After a scan of the feed: the paths whose bytes the journal does not hold as current (the
   * feed delivers them again), and a look at the disk for journalled files the feed did not list
   * (gone, or only excluded from the index: the disk decides, never the feed's exclude rules).
   */
  private reconcile(files: ReadonlyMap<string, VaultFileState>): string[] {
    const again: string[] = [];
    for (const [path, state] of files) {
      if (!isSyncablePath(path)) continue;
      const known = this.store.liveAt(path);
      if (known === undefined || known.path !== path || known.hash !== state.hash) again.push(path);
    }
    for (const file of this.store.liveFiles()) {
      // The feed never reads the settings folder; the rescan looks after its files.
      if (!files.has(file.path) && !isSettingsPath(file.path)) {
        void this.serial.run(() => this.catchUp(file.path)).catch(() => undefined);
      }
    }
    return again;
  }

  /**
   * Brings the journal's view of `path` in line with the disk: a new or changed file becomes a
   * `put`, a file gone a `delete`. Call only inside `exclusive`/`serial`. Returns the live file
   * at the path afterwards.
   */
  catchUp(path: string, hint?: DiskChange): Promise<SyncFileRow | undefined> {
    return withSettingsPaths(() => this.catchUpInside(path, hint));
  }

  private async catchUpInside(path: string, hint?: DiskChange): Promise<SyncFileRow | undefined> {
    if (hint?.type === 'upsert' && hint.hash !== undefined) {
      // The feed read the file: a version the journal holds at this path needs no second look.
      const same = this.store.liveAt(path);
      if (same !== undefined && same.path === path && same.hash === hint.hash) {
        if (hint.size !== undefined && hint.mtimeMs !== undefined) {
          this.store.setDiskStat(same.file_id, {
            mtime: Math.trunc(hint.mtimeMs),
            size: hint.size,
          });
        }
        return same;
      }
    }
    const resolved = await resolveVaultPath(this.options.vault, path, 'read');
    const known = this.store.liveAt(path);
    if (!resolved.ok) return known;
    if (!resolved.exists) {
      if (known === undefined) {
        // Not journalled, not on disk as spelled: the disk may hold it in other letter case
        // (another program made `Inbox.md`; a device commits `inbox.md`), which is this path
        // for every device.
        const variant = await this.caseVariantOnDisk(path);
        return variant === undefined ? undefined : this.catchUp(variant);
      }
      if (pathKey(known.path) === pathKey(path)) {
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
    // With the feed's bytes, its time and size go with them (the file may have moved on since;
    // the feed reports that next).
    const fromFeed =
      hint?.bytes !== undefined &&
      hint.bytes !== null &&
      hint.mtimeMs !== undefined &&
      hint.size === info.size;
    const disk = fromFeed
      ? { mtime: Math.trunc(hint.mtimeMs as number), size: info.size }
      : { mtime: Math.trunc(info.mtimeMs), size: info.size };
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
    const imported = await this.importVersion(resolved.absolute, disk.size, hint);
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
    /** Files the journal has never seen (every file, on a first start): read, then added in batches. */
    let fresh: Array<{ path: string; size: number; mtime: number }> = [];
    for (const file of files) {
      if (this.closed) break;
      seen.add(pathKey(file.path));
      const known = this.store.liveAt(file.path);
      if (known === undefined) {
        fresh.push(file);
        if (fresh.length >= RESCAN_BATCH) {
          await this.addFresh(fresh);
          fresh = [];
        }
        continue;
      }
      if (
        known.path === file.path &&
        known.disk_mtime === file.mtime &&
        known.disk_size === file.size
      ) {
        continue;
      }
      await this.serial.run(() => this.catchUp(file.path));
    }
    if (fresh.length > 0 && !this.closed) await this.addFresh(fresh);
    if (this.closed) return { changed: this.store.head() - before };
    for (const file of this.store.liveFiles()) {
      if (!seen.has(file.path_key)) await this.serial.run(() => this.catchUp(file.path));
    }
    return { changed: this.store.head() - before };
  }

  /**
   * Journals files the journal has not seen, read into the blob store first and then added in
   * one transaction; a path that got journalled meanwhile (a commit, the feed) is looked at
   * again one by one instead.
   */
  private async addFresh(
    files: ReadonlyArray<{ path: string; size: number; mtime: number }>,
  ): Promise<void> {
    const read: Array<{ file: (typeof files)[number]; hash: string; size: number }> = [];
    for (const file of files) {
      if (file.size > this.options.blobs.maxFileBytes) continue;
      try {
        const imported = await this.options.blobs.importFile(join(this.options.vault, file.path));
        read.push({ file, ...imported });
      } catch {
        // Gone or unreadable meanwhile: the feed or the next rescan sees it.
      }
    }
    await this.serial.run(async () => {
      const entries: NewJournalEntry[] = [];
      const later: string[] = [];
      const keys = new Set<string>();
      for (const { file, hash, size } of read) {
        const key = pathKey(file.path);
        if (this.store.liveAt(file.path) !== undefined || keys.has(key)) {
          later.push(file.path);
          continue;
        }
        keys.add(key);
        entries.push({
          fileId: newFileId(),
          path: file.path,
          op: 'put',
          hash,
          size,
          mtime: file.mtime,
          device: SYNC_SERVER_DEVICE,
          disk: { mtime: file.mtime, size: file.size },
        });
      }
      this.append(entries);
      for (const path of later) await this.catchUp(path);
    });
  }

  /** The file's bytes into the blob store: the feed's copy when it passed one of this size. */
  private async importVersion(
    absolute: string,
    size: number,
    hint: DiskChange | undefined,
  ): Promise<{ hash: string; size: number }> {
    const bytes = hint?.bytes;
    if (bytes !== undefined && bytes !== null && bytes.length === size) {
      const stored = await this.options.blobs.putBytes(bytes);
      if (hint?.hash === undefined || stored.hash === hint.hash) return stored;
    }
    return this.options.blobs.importFile(absolute);
  }

  /** Journal entries after `since` (see SyncChangesResponse); `since = 0` lists live files. */
  changes(
    since: number,
    limit: number,
    options: { settings?: boolean } = {},
  ): { changes: SyncChange[]; next: number; more: boolean } {
    const listed = this.changesOfAll(since, limit);
    if (options.settings === true) return listed;
    // Settings files go only to devices that ask for them (`settings=1`): an older device, or
    // one that syncs no settings, never sees a `.obsidian/` path. `next` and `more` stay those
    // of the whole page.
    return {
      ...listed,
      changes: listed.changes.filter(
        (change) => !isSettingsPath(change.path) && !isSettingsPath(change.from_path ?? ''),
      ),
    };
  }

  private changesOfAll(
    since: number,
    limit: number,
  ): { changes: SyncChange[]; next: number; more: boolean } {
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
          device: row.device,
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

  private async vaultReadable(): Promise<boolean> {
    try {
      await readdir(this.options.vault);
      return true;
    } catch {
      return false;
    }
  }

  /** The file's path as spelled on disk when that differs only in letter case, if there is one. */
  private async caseVariantOnDisk(path: string): Promise<string | undefined> {
    const wanted = path.normalize('NFC').split('/');
    // Every folder that matches in letter case is looked in, the exact spelling first: an empty
    // `Projects/` left by a delete beside the `projects/` another program wrote into would hide
    // `projects/plan.md`, and a commit of `Projects/Plan.md` made both (seed 2300000212).
    const search = async (found: readonly string[]): Promise<string | undefined> => {
      const part = wanted[found.length];
      if (part === undefined) return found.join('/').normalize('NFC');
      let names: string[];
      try {
        names = await readdir(join(this.options.vault, ...found));
      } catch {
        return undefined;
      }
      const folded = pathKey(part);
      const matches = [
        ...names.filter((name) => name.normalize('NFC') === part),
        ...names.filter((name) => name.normalize('NFC') !== part && pathKey(name) === folded),
      ];
      for (const match of matches) {
        const onDisk = await search([...found, match]);
        if (onDisk !== undefined) return onDisk;
      }
      return undefined;
    };
    const onDisk = await search([]);
    return onDisk === undefined || onDisk === path.normalize('NFC') ? undefined : onDisk;
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
      if (entry.isDirectory()) {
        if (isSyncableFolder(relative)) pending.push(relative);
      } else if (entry.isFile() && isSyncablePath(relative)) {
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
