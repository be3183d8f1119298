import { rmSync, utimesSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexStore } from '../../../companion/search/index-store';
import { createLogger } from '../../../companion/logging';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/** Every file the indexer reads goes through readFile: counted here, by path. */
const reads = vi.hoisted(() => ({ paths: [] as string[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  const readFile = ((...args: Parameters<typeof actual.readFile>) => {
    reads.paths.push(String(args[0]));
    return actual.readFile(...args);
  }) as typeof actual.readFile;
  return { ...actual, readFile, default: { ...actual, readFile } };
});

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await fixture?.close();
  fixture = undefined;
});

/** Vault files read since the last call (the database and settings are not counted). */
function vaultReads(f: IndexerFixture): string[] {
  const read = reads.paths
    .filter((path) => path.startsWith(f.vault))
    .map((path) => path.slice(f.vault.length + 1));
  reads.paths = [];
  return read.sort();
}

/** A time well clear of the one the file was written at, so mtime surely differs. */
function later(minutes: number): Date {
  return new Date(Date.now() + minutes * 60_000);
}

describe('restart of an indexed vault', () => {
  it('reads no file whose time and size match the index', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha', 'Sub/B.md': 'bravo' } });
    await fixture.indexer.whenIdle();
    expect(vaultReads(fixture)).toEqual(['A.md', 'Sub/B.md']);

    const again = await fixture.restart();
    await again.whenIdle();
    expect(vaultReads(fixture)).toEqual([]);
    expect(again.indexedCount).toBe(0);
    expect(again.pending).toBe(0);
  });

  it('re-reads and re-indexes a file rewritten to the same size with a new time', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha one', 'B.md': 'bravo' } });
    await fixture.indexer.whenIdle();
    vaultReads(fixture);
    fixture.write('A.md', 'alpha two');
    utimesSync(join(fixture.vault, 'A.md'), later(1), later(1));

    const again = await fixture.restart();
    await again.whenIdle();
    expect(vaultReads(fixture)).toEqual(['A.md']);
    expect(again.indexedCount).toBe(1);
    expect(again.queries.keyword('two', {}, 5)).toHaveLength(1);
    expect(again.queries.keyword('one', {}, 5)).toEqual([]);
  });

  it('a touched file is read once, re-indexes and re-embeds nothing, and is not read again', async () => {
    const embedder = new HashingEmbedder();
    fixture = await startIndexer({ files: { 'A.md': 'alpha', 'B.md': 'bravo' }, embedder });
    await fixture.indexer.whenEmbedded();
    const embedded = embedder.texts;
    vaultReads(fixture);
    utimesSync(join(fixture.vault, 'A.md'), later(2), later(2));

    const again = await fixture.restart({ embedder });
    await again.whenEmbedded();
    expect(vaultReads(fixture)).toEqual(['A.md']);
    expect(again.indexedCount).toBe(0);
    expect(embedder.texts).toBe(embedded);

    // The new time was stored: the next restart has nothing to read.
    const third = await fixture.restart({ embedder });
    await third.whenEmbedded();
    expect(vaultReads(fixture)).toEqual([]);
  });

  it('looks for texts without a vector once, not once per group of files checked', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 120; i++) files[`Notes/N${i}.md`] = `note number ${i} about herons`;
    const embedder = new HashingEmbedder();
    fixture = await startIndexer({ files, embedder });
    await fixture.indexer.whenEmbedded();

    const passes = vi.spyOn(IndexStore.prototype, 'ensureModel');
    const again = await fixture.restart({ embedder });
    await again.whenEmbedded();
    expect(again.indexedCount).toBe(0);
    expect(passes).toHaveBeenCalledTimes(1);
  });

  it('what changes while the first scan runs is read too: the folders are watched before it', async () => {
    fixture = await startIndexer({
      files: { 'A.md': 'alpha before', 'B.md': 'bravo', 'C.md': 'charlie' },
    });
    await fixture.indexer.whenIdle();
    const f = fixture;
    // Changed right after the scan compared every file with the index (the scan logs this line
    // then) and before it read any: no periodic rescan, so only the watcher can report these.
    let changed = false;
    const logger = createLogger('info', {
      write(line: string) {
        if (changed || !line.includes('vault scan: checking files')) return;
        changed = true;
        f.write('A.md', 'alpha after the scan, longer');
        rmSync(join(f.vault, 'B.md'));
        f.write('D.md', 'delta created meanwhile');
      },
    });
    const again = await fixture.restart({ watch: true, logger, rescanIntervalMs: 0 });
    await vi.waitFor(
      () => {
        expect(again.queries.keyword('delta', {}, 5)).toHaveLength(1);
        expect(again.queries.keyword('longer', {}, 5)).toHaveLength(1);
        expect(again.store.fileState('B.md')).toBeUndefined();
      },
      { timeout: 5000, interval: 20 },
    );
    expect(changed).toBe(true);
    expect(again.queries.keyword('before', {}, 5)).toEqual([]);
  });
});
