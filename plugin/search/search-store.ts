import { deleteDB, openDB } from 'idb';
import type { DBSchema, IDBPDatabase } from 'idb';
import type { NoteChunk } from '../../shared/search/chunk';
import type { EngineSnapshot } from './engine-snapshot';
import { joinLargeFields, splitLargeFields } from './snapshot-parts';

/*
 * What survives a restart (measured on this stack: never an engine's JSON dump): per file its mtime, size,
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
/** Floats per vector record of the snapshot: 4 MB, ~2,000 vectors of 512 dimensions. */
const VECTOR_PART_FLOATS = 1 << 20;

/** The snapshot's main record: the engine snapshot with its vectors' data in other records. */
type StoredSnapshot = Omit<EngineSnapshot, 'vectors'> & {
  generation: string;
  vectors?: Omit<NonNullable<EngineSnapshot['vectors']>, 'data'> & {
    parts: number;
    length: number;
  };
};

interface VectorPart {
  generation: string;
  data: Float32Array;
}

function vectorPartKey(part: number): string {
  return `vectors-${part}`;
}

/**
 * Bytes per record of the main record's large fields (snapshot-parts.ts). Strings are most of
 * them (vocabulary, chunk ids) and cloning text costs far more than typed arrays: at 4 MB, the
 * fields under that size (chunk ids, vector keys, sign codes: ~9 MB at 10k notes) stayed in the
 * main record, one 240 ms read with the CPU throttled 4×.
 */
const FIELD_PART_BYTES = 1 << 20;

function fieldPartKey(part: number): string {
  return `fields-${part}`;
}

function isStoredSnapshot(value: unknown): value is StoredSnapshot {
  if (typeof value !== 'object' || value === null || !('generation' in value)) return false;
  const vectors = (value as { vectors?: unknown }).vectors;
  if (vectors === undefined) return true;
  if (typeof vectors !== 'object' || vectors === null) return false;
  const { parts, length } = vectors as { parts?: unknown; length?: unknown };
  return Number.isInteger(parts) && Number.isInteger(length) && (length as number) >= 0;
}

function isVectorPart(value: unknown): value is VectorPart {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as VectorPart).generation === 'string' &&
    (value as VectorPart).data instanceof Float32Array
  );
}

export function searchStoreName(vaultKey: string, version = SEARCH_STORE_SCHEMA_VERSION): string {
  return `${NAME_PREFIX}-${vaultKey}-v${version}`;
}

export class SearchStore {
  /** Snapshot writes by this connection, for generation ids. */
  private writes = 0;

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

  /**
   * The stored engine snapshot, its vector parts put back together, otherwise unchecked (the
   * engine validates it); undefined when there is none. `between` runs between part reads
   * (a UI turn). Throws when a part is missing or from another write.
   */
  async readSnapshot(between: () => Promise<void> = async () => {}): Promise<unknown> {
    const { snapshot, readVectors } = await this.readSnapshotDeferringVectors(between);
    if (readVectors === undefined) return snapshot;
    return { ...(snapshot as object), vectors: await readVectors() };
  }

  /**
   * `readSnapshot` in two parts: the snapshot without `vectors`, and a reader for them (most
   * of its bytes: ~80 MB at 10k notes), so the keyword index can answer before they are read.
   * `readVectors` is absent when the snapshot has no vectors; it throws like `readSnapshot`.
   */
  async readSnapshotDeferringVectors(
    between: () => Promise<void> = async () => {},
  ): Promise<{ snapshot: unknown; readVectors?: () => Promise<unknown> }> {
    const stored = await this.db.get('snapshot', SNAPSHOT_KEY);
    if (!isStoredSnapshot(stored)) return { snapshot: stored };
    const meta = (await joinLargeFields(stored, async (part) => {
      await between();
      const record: unknown = await this.db.get('snapshot', fieldPartKey(part));
      if (
        typeof record !== 'object' ||
        record === null ||
        (record as { generation?: unknown }).generation !== stored.generation
      ) {
        throw new Error(`snapshot field part ${part} is missing or from another write`);
      }
      return (record as { data?: unknown }).data;
    })) as StoredSnapshot;
    const { vectors: stub, ...snapshot } = meta;
    if (stub === undefined) return { snapshot };
    const { parts, length, ...vectors } = stub;
    const readVectors = async () => {
      const data = new Float32Array(length);
      let at = 0;
      for (let part = 0; part < parts; part++) {
        await between();
        const stored = await this.db.get('snapshot', vectorPartKey(part));
        if (!isVectorPart(stored) || stored.generation !== meta.generation) {
          throw new Error(`snapshot vector part ${part} is missing or from another write`);
        }
        if (at + stored.data.length > length) throw new Error('snapshot vector parts overflow');
        data.set(stored.data, at);
        at += stored.data.length;
      }
      if (at !== length) throw new Error(`snapshot vector parts hold ${at} of ${length} floats`);
      return { ...vectors, data };
    };
    return { snapshot, readVectors };
  }

  /**
   * Stores the snapshot: the vectors in parts of VECTOR_PART_FLOATS, one put each with
   * `between` after it (each put clones its value at once, so one record of 80 MB would be
   * one long task), then the large fields of the rest in parts of FIELD_PART_BYTES likewise,
   * then the rest. Every record carries the write's generation, and the main record goes last:
   * a write cut short leaves parts that do not match it, which the next read refuses.
   */
  async putSnapshot(
    snapshot: EngineSnapshot,
    between: () => Promise<void> = async () => {},
  ): Promise<void> {
    const generation = `${Date.now().toString(36)}-${(this.writes++).toString(36)}`;
    const { vectors, ...rest } = snapshot;
    let parts = 0;
    if (vectors) {
      for (let start = 0; start < vectors.data.length; start += VECTOR_PART_FLOATS) {
        const data = vectors.data.slice(start, start + VECTOR_PART_FLOATS);
        await this.db.put('snapshot', { generation, data }, vectorPartKey(parts++));
        await between();
      }
    }
    const meta: StoredSnapshot = {
      ...rest,
      generation,
      ...(vectors
        ? {
            vectors: {
              model: vectors.model,
              dims: vectors.dims,
              keys: vectors.keys,
              ...(vectors.codes && vectors.coder
                ? { codes: vectors.codes, coder: vectors.coder }
                : {}),
              parts,
              length: vectors.data.length,
            },
          }
        : {}),
    };
    const split = splitLargeFields(meta, FIELD_PART_BYTES);
    for (const [part, data] of split.parts.entries()) {
      await this.db.put('snapshot', { generation, data: data() }, fieldPartKey(part));
      await between();
    }
    await this.db.put('snapshot', split.main, SNAPSHOT_KEY);
    for (const key of await this.db.getAllKeys('snapshot')) {
      const vectorPart = /^vectors-(\d+)$/.exec(key);
      const fieldPart = /^fields-(\d+)$/.exec(key);
      if (
        (vectorPart && Number(vectorPart[1]) >= parts) ||
        (fieldPart && Number(fieldPart[1]) >= split.parts.length)
      ) {
        await this.db.delete('snapshot', key);
      }
    }
  }

  async deleteSnapshot(): Promise<void> {
    await this.db.clear('snapshot');
  }

  getFile(path: string): Promise<StoredFile | undefined> {
    return this.db.get('files', path);
  }

  /** The stored files among `paths`, in one read transaction (missing ones are absent). */
  async getFiles(paths: readonly string[]): Promise<StoredFile[]> {
    if (paths.length === 0) return [];
    const tx = this.db.transaction('files', 'readonly');
    const files = await Promise.all(paths.map((path) => tx.store.get(path)));
    await tx.done;
    return files.filter((file): file is StoredFile => file !== undefined);
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

/**
 * Deletes this vault's search index on this device, every schema version of it. Close any
 * open store first: IndexedDB waits for open connections before it deletes.
 */
export async function deleteSearchStores(vaultKey: string): Promise<void> {
  await deleteDB(searchStoreName(vaultKey));
  await deleteOtherVersions(vaultKey, searchStoreName(vaultKey));
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
