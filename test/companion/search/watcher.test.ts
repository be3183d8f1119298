import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VaultChange } from '../../../companion/search';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function paths(f: IndexerFixture): string[] {
  return f.db
    .prepare<[], { path: string }>('SELECT path FROM index_files ORDER BY path')
    .all()
    .map((row) => row.path);
}

/** Waits until `check` passes (watcher events arrive asynchronously), then for the indexer to idle. */
async function settled(f: IndexerFixture, check: () => void): Promise<void> {
  await vi.waitFor(check, { timeout: 5000, interval: 20 });
  await f.indexer.whenIdle();
}

async function watching(files: Record<string, string>, embedder?: HashingEmbedder) {
  const f = await startIndexer({ files, watch: true, ...(embedder ? { embedder } : {}) });
  await f.indexer.whenEmbedded();
  return f;
}

describe('watcher', () => {
  it('picks up a created, then modified, then deleted note, with events', async () => {
    fixture = await watching({ 'Keep.md': 'unrelated' });
    const changes: VaultChange[] = [];
    fixture.indexer.onChange((change) => changes.push(change));

    fixture.write('New.md', 'a note about kestrels');
    await settled(fixture, () =>
      expect(fixture!.indexer.queries.keyword('kestrels', {}, 5)).toHaveLength(1),
    );

    fixture.write('New.md', 'a note about falcons instead');
    await settled(fixture, () =>
      expect(fixture!.indexer.queries.keyword('falcons', {}, 5)).toHaveLength(1),
    );
    expect(fixture.indexer.queries.keyword('kestrels', {}, 5)).toEqual([]);

    rmSync(join(fixture.vault, 'New.md'));
    await settled(fixture, () => expect(paths(fixture!)).toEqual(['Keep.md']));
    expect(changes).toEqual([
      { type: 'upsert', path: 'New.md', kind: 'note' },
      { type: 'upsert', path: 'New.md', kind: 'note' },
      { type: 'delete', path: 'New.md', kind: 'note' },
    ]);
  });

  it('a rename moves the note and re-embeds nothing', async () => {
    const embedder = new HashingEmbedder();
    fixture = await watching(
      { 'Birds/Old name.md': '---\ntitle: Owls\n---\nBarn owls hunt at night.' },
      embedder,
    );
    const embedded = embedder.texts;
    renameSync(join(fixture.vault, 'Birds/Old name.md'), join(fixture.vault, 'Birds/New name.md'));
    await settled(fixture, () => expect(paths(fixture!)).toEqual(['Birds/New name.md']));
    await fixture.indexer.whenEmbedded();
    expect(embedder.texts).toBe(embedded);
    const [hit] = fixture.indexer.queries.keyword('owls', {}, 5);
    expect(fixture.indexer.queries.chunks([hit!.chunkId])[0]?.path).toBe('Birds/New name.md');
    expect(fixture.indexer.indexStatus().embedding).not.toBeNull();
  });

  it('a folder move re-indexes every file under its new path', async () => {
    fixture = await watching({
      'Projects/A.md': 'alpha project',
      'Projects/Sub/B.md': 'bravo project',
      'Other.md': 'other',
    });
    renameSync(join(fixture.vault, 'Projects'), join(fixture.vault, 'Archive 2026'));
    await settled(fixture, () =>
      expect(paths(fixture!)).toEqual(['Archive 2026/A.md', 'Archive 2026/Sub/B.md', 'Other.md']),
    );
    expect(fixture.indexer.queries.keyword('project', { folder: 'Archive 2026' }, 5)).toHaveLength(
      2,
    );
    expect(fixture.indexer.queries.keyword('project', { folder: 'Projects' }, 5)).toEqual([]);
  });

  it('a folder tree moved in is indexed, and a note written later deep inside it too', async () => {
    fixture = await watching({ 'Other.md': 'other' });
    const outside = join(fixture.dir, 'Downloads');
    mkdirSync(join(outside, 'Sub/Deeper'), { recursive: true });
    writeFileSync(join(outside, 'Sub/Deeper/C.md'), 'charlie heron');
    renameSync(outside, join(fixture.vault, 'Moved'));
    await settled(fixture, () =>
      expect(paths(fixture!)).toEqual(['Moved/Sub/Deeper/C.md', 'Other.md']),
    );
    fixture.write('Moved/Sub/Deeper/D.md', 'delta egret');
    await settled(fixture, () =>
      expect(fixture!.indexer.queries.keyword('egret', {}, 5)).toHaveLength(1),
    );
  });

  it('a deleted folder drops every file under it', async () => {
    fixture = await watching({
      'Gone/A.md': 'alpha',
      'Gone/Deep/B.md': 'bravo',
      'Stay.md': 'stay',
    });
    rmSync(join(fixture.vault, 'Gone'), { recursive: true });
    await settled(fixture, () => expect(paths(fixture!)).toEqual(['Stay.md']));
  });

  it('a file written in several steps (partial, then final) ends up indexed as its final text', async () => {
    fixture = await watching({});
    const file = join(fixture.vault, 'Synced.md');
    writeFileSync(file, '---\ntitle: Half wri');
    appendFileSync(file, 'tten\n---\nfirst part about ');
    await new Promise((resolve) => setTimeout(resolve, 10));
    appendFileSync(file, 'marmots and pikas.\n');
    await settled(fixture, () =>
      expect(fixture!.indexer.queries.keyword('pikas', {}, 5)).toHaveLength(1),
    );
    const [row] = fixture.indexer.queries.chunks(
      fixture.indexer.queries.keyword('pikas', {}, 5).map((hit) => hit.chunkId),
    );
    expect(row).toMatchObject({
      title: 'Half written',
      text: 'first part about marmots and pikas.',
    });
    expect(fixture.indexer.indexStatus()).toMatchObject({ pending: 0, failed: [] });
  });

  it('a sync tool writing a temp dot-file, then renaming it over the note, is one update', async () => {
    fixture = await watching({ 'Note.md': 'old words about voles' });
    const changes: VaultChange[] = [];
    fixture.indexer.onChange((change) => changes.push(change));
    writeFileSync(join(fixture.vault, '.Note.md.syncthing.tmp'), 'new words about shrews');
    renameSync(join(fixture.vault, '.Note.md.syncthing.tmp'), join(fixture.vault, 'Note.md'));
    await settled(fixture, () =>
      expect(fixture!.indexer.queries.keyword('shrews', {}, 5)).toHaveLength(1),
    );
    expect(changes).toEqual([{ type: 'upsert', path: 'Note.md', kind: 'note' }]);
    expect(paths(fixture)).toEqual(['Note.md']);
  });

  it("Obsidian's delete (a move into .trash) drops the note", async () => {
    fixture = await watching({ 'Doomed.md': 'about to be trashed: tapirs', 'Stay.md': 'stay' });
    mkdirSync(join(fixture.vault, '.trash'));
    renameSync(join(fixture.vault, 'Doomed.md'), join(fixture.vault, '.trash/Doomed.md'));
    await settled(fixture, () => expect(paths(fixture!)).toEqual(['Stay.md']));
    expect(fixture.indexer.queries.keyword('tapirs', {}, 5)).toEqual([]);
  });

  it('ignores changes inside .obsidian and .trash', async () => {
    fixture = await watching({ 'A.md': 'alpha' });
    mkdirSync(join(fixture.vault, '.trash'), { recursive: true });
    writeFileSync(join(fixture.vault, '.trash/B.md'), 'trashed wombats');
    fixture.write('C.md', 'marker');
    await settled(fixture, () => expect(paths(fixture!)).toEqual(['A.md', 'C.md']));
    expect(fixture.indexer.queries.keyword('wombats', {}, 5)).toEqual([]);
  });

  it('a note that becomes a reminder changes kind', async () => {
    fixture = await watching({ 'Task.md': 'call the plumber' });
    const changes: VaultChange[] = [];
    fixture.indexer.onChange((change) => changes.push(change));
    fixture.write('Task.md', '---\ntype: reminder\ntitle: Call the plumber\n---\ncall the plumber');
    await settled(fixture, () => expect(changes).toHaveLength(1));
    expect(changes[0]).toEqual({ type: 'upsert', path: 'Task.md', kind: 'reminder' });
    expect(fixture.indexer.queries.keyword('plumber', { type: 'reminder' }, 5)).toHaveLength(1);
  });
});

describe('refresh and periodic rescan', () => {
  it('refresh indexes a just-written file at once, without waiting for the watcher', async () => {
    fixture = await startIndexer({ files: {}, debounceMs: 60_000 });
    await fixture.indexer.whenIdle();
    fixture.write('Ingested/paper.md', 'uploaded words about lemurs');
    writeFileSync(join(fixture.dir, 'escape.md'), 'outside words about lemurs');
    await fixture.indexer.refresh([
      'Ingested/paper.md',
      '../escape.md',
      '/etc/passwd',
      'Ingested/../../escape.md',
      '.obsidian/x.md',
    ]);
    expect(fixture.indexer.queries.keyword('lemurs', {}, 5)).toHaveLength(1);
    expect(paths(fixture)).toEqual(['Ingested/paper.md']);

    // A symlinked folder leading out of the vault is not a way in either.
    symlinkSync(fixture.dir, join(fixture.vault, 'Out'));
    await fixture.indexer.refresh(['Out/escape.md']);
    expect(fixture.indexer.queries.keyword('outside', {}, 5)).toEqual([]);
    expect(fixture.indexer.indexStatus().failed).toEqual([
      { path: 'Out/escape.md', error: 'a folder on its path leads outside the vault; not read' },
    ]);
  });

  it('a periodic rescan catches a change the watcher did not report', async () => {
    fixture = await startIndexer({
      files: { 'A.md': 'alpha' },
      watch: true,
      rescanIntervalMs: 100,
      // The watcher's own event waits a minute: within the test only the rescan can find the file.
      debounceMs: 60_000,
    });
    await fixture.indexer.whenIdle();
    fixture.write('B.md', 'bravo seen by the rescan');
    await vi.waitFor(
      () => expect(fixture!.indexer.queries.keyword('rescan', {}, 5)).toHaveLength(1),
      { timeout: 5000, interval: 20 },
    );
  });
});
