import type { PendingCommit, SyncFileRecord, SyncStateStore } from './sync-ports';
import { compareCodeUnits } from '../../shared/protocol/json';

/**
 * The sync state in memory: tests, the simulation (which "crashes" a device by dropping its
 * engine and keeping this store, as IndexedDB would survive), and a device with no IndexedDB.
 */
export class MemorySyncStateStore implements SyncStateStore {
  private readonly files = new Map<string, SyncFileRecord>();
  /** fileId → path, kept with `files`. */
  private readonly byFileId = new Map<string, string>();
  private seq = 0;
  private pending: PendingCommit | undefined;

  getFile(path: string): Promise<SyncFileRecord | undefined> {
    return Promise.resolve(this.files.get(path));
  }

  findByFileId(fileId: string): Promise<SyncFileRecord | undefined> {
    const path = this.byFileId.get(fileId);
    return Promise.resolve(path === undefined ? undefined : this.files.get(path));
  }

  allFiles(): Promise<SyncFileRecord[]> {
    return Promise.resolve(
      [...this.files.values()].sort((a, b) => compareCodeUnits(a.path, b.path)),
    );
  }

  update(put: readonly SyncFileRecord[], remove: readonly string[] = []): Promise<void> {
    for (const path of remove) this.remove(path);
    for (const record of put) {
      this.remove(record.path);
      this.files.set(record.path, { ...record });
      if (record.fileId !== null) this.byFileId.set(record.fileId, record.path);
    }
    return Promise.resolve();
  }

  getSeq(): Promise<number> {
    return Promise.resolve(this.seq);
  }

  setSeq(seq: number): Promise<void> {
    this.seq = seq;
    return Promise.resolve();
  }

  getPendingCommit(): Promise<PendingCommit | undefined> {
    return Promise.resolve(this.pending && structuredClone(this.pending));
  }

  setPendingCommit(pending: PendingCommit | null): Promise<void> {
    this.pending = pending === null ? undefined : structuredClone(pending);
    return Promise.resolve();
  }

  close(): void {}

  private remove(path: string): void {
    const old = this.files.get(path);
    if (!old) return;
    this.files.delete(path);
    if (old.fileId !== null && this.byFileId.get(old.fileId) === path) {
      this.byFileId.delete(old.fileId);
    }
  }
}
