import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { IdbSyncStateStore } from '../../../plugin/sync/idb-state-store';
import { MemorySyncStateStore } from '../../../plugin/sync/memory-state-store';
import type { SyncFileRecord, SyncStateStore } from '../../../plugin/sync/sync-ports';

const HASH = 'a'.repeat(64);

function record(path: string, fileId: string | null): SyncFileRecord {
  return {
    path,
    fileId,
    base: fileId ? HASH : null,
    syncedPath: fileId ? path : null,
    localHash: HASH,
    size: 3,
    mtime: 1,
  };
}

let open: SyncStateStore | null = null;
let vaults = 0;
afterEach(() => open?.close());

describe.each([
  ['memory', () => Promise.resolve(new MemorySyncStateStore())],
  ['IndexedDB', () => IdbSyncStateStore.open(`vault-${++vaults}`)],
])('%s sync state store', (_name, make: () => Promise<SyncStateStore>) => {
  it('finds records by path and by file_id, and moves one in a single update', async () => {
    const store = (open = await make());
    await store.update([record('a.md', 'id-a'), record('new.md', null)]);
    expect(await store.getFile('a.md')).toEqual(record('a.md', 'id-a'));
    expect((await store.findByFileId('id-a'))?.path).toBe('a.md');
    await store.update([{ ...record('b.md', 'id-a'), syncedPath: 'a.md' }], ['a.md']);
    expect(await store.getFile('a.md')).toBeUndefined();
    expect((await store.findByFileId('id-a'))?.path).toBe('b.md');
    expect((await store.allFiles()).map((file) => file.path)).toEqual(['b.md', 'new.md']);
    await store.update([], ['b.md']);
    expect(await store.findByFileId('id-a')).toBeUndefined();
  });

  it('keeps the journal position, 0 before the first pull', async () => {
    const store = (open = await make());
    expect(await store.getSeq()).toBe(0);
    await store.setSeq(42);
    expect(await store.getSeq()).toBe(42);
  });

  it('refuses a vault key that could name another database', async () => {
    if (_name === 'memory') return;
    await expect(IdbSyncStateStore.open('../other')).rejects.toThrow('vault key');
  });
});
