import { deleteDB, openDB } from 'idb';
import type { DBSchema, IDBPDatabase } from 'idb';
import type { PendingCommit, SyncFileRecord, SyncStateStore } from './sync-ports';

/*
 * The sync state in IndexedDB: one record per file (by path, indexed by file_id) and the journal
 * position. Each call is one transaction, so a record and its removal (a rename) land together.
 * The files' bytes are never here: the companion holds every version.
 */

const NAME_PREFIX = 'cairn-sync';

interface SyncDb extends DBSchema {
  files: { key: string; value: SyncFileRecord; indexes: { byFileId: string } };
  /** `seq` (a number) and `pending` (the PendingCommit, checked when read). */
  meta: { key: string; value: unknown };
}

const SEQ_KEY = 'seq';
const PENDING_KEY = 'pending';

export function syncStoreName(vaultKey: string): string {
  return `${NAME_PREFIX}-${vaultKey}`;
}

/** Deletes this vault's sync state on this device (sync must be stopped: it holds it open). */
export async function deleteSyncStore(vaultKey: string): Promise<void> {
  await deleteDB(syncStoreName(vaultKey));
}

export class IdbSyncStateStore implements SyncStateStore {
  private constructor(private readonly db: IDBPDatabase<SyncDb>) {}

  /** Opens (creating if needed) this vault's sync state; `vaultKey` as for the search store. */
  static async open(vaultKey: string): Promise<IdbSyncStateStore> {
    if (!/^[\w.-]{1,128}$/.test(vaultKey)) {
      throw new Error(
        `sync store: vault key must be 1-128 letters, digits, . _ - (got ${JSON.stringify(vaultKey)})`,
      );
    }
    const db = await openDB<SyncDb>(syncStoreName(vaultKey), 1, {
      upgrade(database) {
        const files = database.createObjectStore('files', { keyPath: 'path' });
        // Records of files never committed have a null fileId and stay out of the index.
        files.createIndex('byFileId', 'fileId');
        database.createObjectStore('meta');
      },
    });
    return new IdbSyncStateStore(db);
  }

  getFile(path: string): Promise<SyncFileRecord | undefined> {
    return this.db.get('files', path);
  }

  findByFileId(fileId: string): Promise<SyncFileRecord | undefined> {
    return this.db.getFromIndex('files', 'byFileId', fileId);
  }

  allFiles(): Promise<SyncFileRecord[]> {
    return this.db.getAll('files');
  }

  async update(put: readonly SyncFileRecord[], remove: readonly string[] = []): Promise<void> {
    const transaction = this.db.transaction('files', 'readwrite');
    const done = transaction.done;
    for (const path of remove) void transaction.store.delete(path);
    for (const record of put) void transaction.store.put({ ...record });
    await done;
  }

  async getSeq(): Promise<number> {
    const seq = await this.db.get('meta', SEQ_KEY);
    return typeof seq === 'number' ? seq : 0;
  }

  async setSeq(seq: number): Promise<void> {
    await this.db.put('meta', seq, SEQ_KEY);
  }

  async getPendingCommit(): Promise<PendingCommit | undefined> {
    const pending = await this.db.get('meta', PENDING_KEY);
    return isPendingCommit(pending) ? pending : undefined;
  }

  async setPendingCommit(pending: PendingCommit | null): Promise<void> {
    if (pending === null) await this.db.delete('meta', PENDING_KEY);
    else await this.db.put('meta', pending, PENDING_KEY);
  }

  close(): void {
    this.db.close();
  }
}

function isPendingCommit(value: unknown): value is PendingCommit {
  if (typeof value !== 'object' || value === null) return false;
  const { commitId, sinceSeq, items } = value as Partial<PendingCommit>;
  return typeof commitId === 'string' && typeof sinceSeq === 'number' && Array.isArray(items);
}
