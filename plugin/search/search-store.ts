import { deleteDB, openDB } from 'idb';
import type { DBSchema, IDBPDatabase } from 'idb';
import type { NoteChunk } from '../../shared/search/chunk';
import type { EngineSnapshot } from './engine-snapshot';

/*
 * What survives a restart (STACK.md: never an engine's JSON dump): per file its mtime, size,
 * content hash and chunks with their locators and text hashes; per (model id, text hash) the
 * raw Float32Array; and one snapshot of the engine's keyword index (typed arrays, see
 * engine-snapshot.ts) so a start re-tokenises only files that changed since it was taken. The
 * database name carries a schema version; older versions are deleted. IndexedDB version 2
 * added the snapshot store to version 1's files and vectors, keeping them.
 */

/** Bump when the stored shape changes: the old database is dropped and the vault re-indexed. */
export const SEARCH_STORE_SCHEMA_VERSION = 1;
const NAME_PREFIX = 'cairn-search';

export interface StoredFile {
  path: string;
  mtime: number;
  size: number;
  /** textHash of the whole file content. */
  contentHash: string;
  chunks: NoteChunk[];
}

interface StoredVector {
  model: string;
  textHash: string;
  vector: Float32Array;
}

interface SearchDb extends DBSchema {
  files: { key: string; value: StoredFile };
  vectors: { key: [string, string]; value: StoredVector; indexes: { byModel: string } };
  /** One record, SNAPSHOT_KEY; typed as unknown because what is read back must be checked. */
  snapshot: { key: string; value: unknown };
}

const SNAPSHOT_KEY = 'engine';

export function searchStoreName(vaultKey: string, version = SEARCH_STORE_SCHEMA_VERSION): string {
  return `${NAME_PREFIX}-${vaultKey}-v${version}`;
}

export class SearchStore {
  private constructor(
    private readonly db: IDBPDatabase<SearchDb>,
    readonly name: string,
  ) {}

  /**
   * Opens (creating if needed) this vault's store and deletes the databases of other schema
   * versions for the same vault. `vaultKey` tells vaults apart (Obsidian's `app.appId`).
   */
  static async open(vaultKey: string): Promise<SearchStore> {
    if (!/^[\w.-]{1,128}$/.test(vaultKey)) {
      throw new Error(
        `search store: vault key must be 1-128 letters, digits, . _ - (got ${JSON.stringify(vaultKey)})`,
      );
    }
    const name = searchStoreName(vaultKey);
    await deleteOtherVersions(vaultKey, name);
    const db = await openDB<SearchDb>(name, 2, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('files', { keyPath: 'path' });
          const vectors = database.createObjectStore('vectors', {
            keyPath: ['model', 'textHash'],
          });
          vectors.createIndex('byModel', 'model');
        }
        if (oldVersion < 2) database.createObjectStore('snapshot');
      },
    });
    return new SearchStore(db, name);
  }

  allFiles(): Promise<StoredFile[]> {
    return this.db.getAll('files');
  }

  /** Up to `count` files in path order, starting after `after` (restores read in batches). */
  filesAfter(after: string | undefined, count: number): Promise<StoredFile[]> {
    const range = after === undefined ? undefined : IDBKeyRange.lowerBound(after, true);
    return this.db.getAll('files', range, count);
  }

  countFiles(): Promise<number> {
    return this.db.count('files');
  }

  /** The stored engine snapshot, unchecked (the engine validates it), or undefined. */
  readSnapshot(): Promise<unknown> {
    return this.db.get('snapshot', SNAPSHOT_KEY);
  }

  async putSnapshot(snapshot: EngineSnapshot): Promise<void> {
    await this.db.put('snapshot', snapshot, SNAPSHOT_KEY);
  }

  async deleteSnapshot(): Promise<void> {
    await this.db.delete('snapshot', SNAPSHOT_KEY);
  }

  getFile(path: string): Promise<StoredFile | undefined> {
    return this.db.get('files', path);
  }

  async putFile(file: StoredFile): Promise<void> {
    await this.db.put('files', file);
  }

  async deleteFile(path: string): Promise<void> {
    await this.db.delete('files', path);
  }

  /** Every stored vector of `model`, by text hash. */
  async vectorsOf(model: string): Promise<Map<string, Float32Array>> {
    const rows = await this.db.getAllFromIndex('vectors', 'byModel', model);
    return new Map(rows.map((row) => [row.textHash, row.vector]));
  }

  /**
   * Up to `count` vectors of `model` in text-hash order, starting after `afterHash`: one range
   * read per batch instead of a get per chunk.
   */
  async vectorsAfter(
    model: string,
    afterHash: string | undefined,
    count: number,
  ): Promise<Array<[string, Float32Array]>> {
    const range = IDBKeyRange.bound(
      [model, afterHash ?? ''],
      [model, '\uffff'],
      afterHash !== undefined,
    );
    const rows = await this.db.getAll('vectors', range, count);
    return rows.map((row) => [row.textHash, row.vector]);
  }

  /** The stored vectors of `model` among `hashes` (missing ones are simply absent). */
  async vectorsFor(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    if (hashes.length === 0) return found;
    const tx = this.db.transaction('vectors', 'readonly');
    const rows = await Promise.all(hashes.map((hash) => tx.store.get([model, hash])));
    await tx.done;
    for (const row of rows) if (row) found.set(row.textHash, row.vector);
    return found;
  }

  async putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const tx = this.db.transaction('vectors', 'readwrite');
    for (const [textHash, vector] of vectors) void tx.store.put({ model, textHash, vector });
    await tx.done;
  }

  /**
   * Deletes vectors of every model but `keepModel`, and those of `keepModel` whose text hash
   * no stored chunk uses any more. Returns how many were deleted.
   */
  async pruneVectors(
    keepModel: string | undefined,
    usedHashes: ReadonlySet<string>,
  ): Promise<number> {
    const tx = this.db.transaction('vectors', 'readwrite');
    let deleted = 0;
    // A key cursor: the vectors themselves are never read (40k × 2 KB at 10k notes).
    for (let cursor = await tx.store.openKeyCursor(); cursor; cursor = await cursor.continue()) {
      const [model, textHash] = cursor.primaryKey;
      if (model !== keepModel || !usedHashes.has(textHash)) {
        void tx.store.delete(cursor.primaryKey);
        deleted++;
      }
    }
    await tx.done;
    return deleted;
  }

  async countVectors(): Promise<number> {
    return this.db.count('vectors');
  }

  close(): void {
    this.db.close();
  }
}

async function deleteOtherVersions(vaultKey: string, keep: string): Promise<void> {
  // indexedDB.databases() is missing in some older WebViews; then old versions stay until it exists.
  if (typeof indexedDB.databases !== 'function') return;
  const prefix = `${NAME_PREFIX}-${vaultKey}-v`;
  for (const info of await indexedDB.databases()) {
    if (
      info.name &&
      info.name !== keep &&
      info.name.startsWith(prefix) &&
      /^\d+$/.test(info.name.slice(prefix.length))
    ) {
      await deleteDB(info.name);
    }
  }
}
