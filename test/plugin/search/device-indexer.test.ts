import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { ExcludeRules } from '../../../shared/search/exclude-rules';
import type { NoteProblem } from '../../../plugin/search/note-input';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import type { SearchEngine } from '../../../plugin/search/search-engine';
import { SearchStore, searchStoreName } from '../../../plugin/search/search-store';
import { DeviceIndexer } from '../../../plugin/search/device-indexer';
import type { IndexProgress } from '../../../plugin/search/device-indexer';
import { FakeEmbedder } from './fake-embedder';
import { FakeVault, ManualTimeSlicer } from './fakes';

let vaultCounter = 0;
const opened: SearchStore[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});

interface Harness {
  indexer: DeviceIndexer;
  engine: SearchEngine;
  store: SearchStore;
  problems: NoteProblem[];
  progress: IndexProgress[];
}

async function harness(
  vault: FakeVault,
  scheduler: ManualTimeSlicer,
  options: {
    key?: string;
    embedder?: FakeEmbedder | null;
    exclude?: string[];
    sliceMs?: number;
  } = {},
): Promise<Harness> {
  const store = await SearchStore.open(options.key ?? `vault${++vaultCounter}`);
  opened.push(store);
  const embedder = options.embedder ?? null;
  const engine = createSearchEngine({ embedder });
  const problems: NoteProblem[] = [];
  const progress: IndexProgress[] = [];
  const indexer = new DeviceIndexer({
    source: vault,
    store,
    engine,
    embedder,
    scheduler,
    exclude: new ExcludeRules(options.exclude ?? []),
    sliceMs: options.sliceMs ?? 25,
    embedBatch: 4,
    onProblem: (problem) => problems.push(problem),
    onProgress: (p) => progress.push(p),
  });
  return { indexer, engine, store, problems, progress };
}

function note(title: string, body: string): string {
  return `---\ntitle: ${title}\n---\n${body}\n`;
}

function sampleVault(scheduler: ManualTimeSlicer, count = 12): FakeVault {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`Notes/note-${i}.md`] = note(
      `Note ${i}`,
      `## Topic\n\ntok${i}x shared text about gardening number ${i}.`,
    );
  }
  return new FakeVault(scheduler, files);
}

/** The best hit's path: with vectors, every note sharing a word is a (lower) hit too. */
const top = async (engine: SearchEngine, query: string) =>
  (await engine.search(query))[0]?.citation.path;

const paths = async (engine: SearchEngine, query: string) =>
  (await engine.search(query, { limit: 50 })).map((hit) => hit.citation.path);

describe('DeviceIndexer: first index and restart', () => {
  it('indexes every file, persists it, and embeds each chunk once', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler);
    const embedder = new FakeEmbedder();
    const { indexer, engine, store, progress } = await harness(vault, scheduler, {
      key: 'first',
      embedder,
    });
    await indexer.start();
    expect(indexer.ready).toBe(true);
    expect(engine.noteCount).toBe(12);
    expect(embedder.embedded.length).toBe(12);
    expect(await top(engine, 'tok7x')).toBe('Notes/note-7.md');
    expect((await store.allFiles()).length).toBe(12);
    expect(await store.countVectors()).toBe(12);
    expect(progress.some((p) => p.phase === 'indexing')).toBe(true);
    expect(progress.some((p) => p.phase === 'embedding')).toBe(true);
    expect(progress.at(-1)).toEqual({ phase: 'idle', done: 0, total: 0 });
    expect((await engine.search('gardening'))[0]?.mode).toBe('hybrid');
  });

  it('restarts from the store: no file read, no embedding, same results', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler);
    const embedder = new FakeEmbedder();
    const first = await harness(vault, scheduler, { key: 'restart', embedder });
    await first.indexer.start();
    first.store.close();

    vault.reads.length = 0;
    const restartEmbedder = new FakeEmbedder();
    const second = await harness(vault, scheduler, { key: 'restart', embedder: restartEmbedder });
    await second.indexer.start();
    expect(vault.reads).toEqual([]);
    expect(restartEmbedder.calls).toBe(0);
    expect(second.engine.noteCount).toBe(12);
    expect(second.engine.chunksWithoutVectors('Notes/note-3.md')).toEqual([]);
    expect(await top(second.engine, 'tok3x')).toBe('Notes/note-3.md');
  });

  it('resumes after a stop mid-way: only the files not yet done are read', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 10);
    vault.readCostMs = 10;
    const first = await harness(vault, scheduler, { key: 'resume' });
    let turns = 0;
    const originalYield = scheduler.yieldToUi.bind(scheduler);
    scheduler.yieldToUi = () => {
      if (++turns === 2) first.indexer.stop();
      return originalYield();
    };
    await first.indexer.start();
    scheduler.yieldToUi = originalYield;
    const doneBefore = (await first.store.allFiles()).length;
    expect(doneBefore).toBeGreaterThan(0);
    expect(doneBefore).toBeLessThan(10);
    first.store.close();

    vault.reads.length = 0;
    const second = await harness(vault, scheduler, { key: 'resume' });
    await second.indexer.start();
    expect(vault.reads.length).toBe(10 - doneBefore);
    expect(second.engine.noteCount).toBe(10);
  });

  it('an empty vault is ready at once and idle', async () => {
    const scheduler = new ManualTimeSlicer();
    const { indexer, engine, progress } = await harness(new FakeVault(scheduler), scheduler);
    await indexer.start();
    expect(indexer.ready).toBe(true);
    expect(engine.noteCount).toBe(0);
    expect(progress.at(-1)?.phase).toBe('idle');
    expect(await engine.search('anything')).toEqual([]);
  });
});

describe('DeviceIndexer: vault events', () => {
  async function started(embedder: FakeEmbedder | null = null) {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 4);
    const h = await harness(vault, scheduler, { embedder });
    await h.indexer.start();
    return { scheduler, vault, ...h };
  }

  it('modify, create, delete are applied after the debounce, not before', async () => {
    const { scheduler, vault, indexer, engine, store } = await started();
    vault.write('Notes/note-1.md', note('Note 1', 'now about beekeeping'));
    indexer.fileChanged('Notes/note-1.md');
    vault.write('Notes/new.md', note('New', 'fresh compost'));
    indexer.fileChanged('Notes/new.md');
    vault.delete('Notes/note-2.md');
    indexer.fileDeleted('Notes/note-2.md');
    scheduler.advance(499);
    await indexer.idle();
    expect(await paths(engine, 'beekeeping')).toEqual([]);
    scheduler.advance(1);
    await indexer.idle();
    expect(await paths(engine, 'beekeeping')).toEqual(['Notes/note-1.md']);
    expect(await paths(engine, 'tok1x')).toEqual([]);
    expect(await paths(engine, 'compost')).toEqual(['Notes/new.md']);
    expect(await paths(engine, 'tok2x')).toEqual([]);
    expect((await store.allFiles()).map((f) => f.path).sort()).toEqual([
      'Notes/new.md',
      'Notes/note-0.md',
      'Notes/note-1.md',
      'Notes/note-3.md',
    ]);
  });

  it('a rename moves the note and re-uses its vectors (same title, same text)', async () => {
    const embedder = new FakeEmbedder();
    const { scheduler, vault, indexer, engine } = await started(embedder);
    const before = embedder.embedded.length;
    vault.rename('Notes/note-0.md', 'Archive/note-0.md');
    indexer.fileRenamed('Notes/note-0.md', 'Archive/note-0.md');
    scheduler.advance(500);
    await indexer.idle();
    expect(embedder.embedded.length).toBe(before);
    expect(await top(engine, 'tok0x')).toBe('Archive/note-0.md');
    expect(engine.hasNote('Notes/note-0.md')).toBe(false);
    expect(engine.chunksWithoutVectors('Archive/note-0.md')).toEqual([]);
  });

  it('a touched but unchanged file is not re-chunked or re-embedded', async () => {
    const embedder = new FakeEmbedder();
    const { scheduler, vault, indexer, store } = await started(embedder);
    const calls = embedder.calls;
    vault.write('Notes/note-1.md', vault.files.get('Notes/note-1.md')!.content);
    indexer.fileChanged('Notes/note-1.md');
    scheduler.advance(500);
    await indexer.idle();
    expect(embedder.calls).toBe(calls);
    expect((await store.getFile('Notes/note-1.md'))?.mtime).toBe(
      vault.stat('Notes/note-1.md')!.mtime,
    );
  });

  it('changes made while Obsidian was closed are found by the mtime diff', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 3);
    const first = await harness(vault, scheduler, { key: 'offline-edits' });
    await first.indexer.start();
    first.store.close();
    vault.write('Notes/note-0.md', note('Note 0', 'edited elsewhere with rhubarb'));
    vault.delete('Notes/note-1.md');
    vault.reads.length = 0;
    const second = await harness(vault, scheduler, { key: 'offline-edits' });
    await second.indexer.start();
    expect(vault.reads).toEqual(['Notes/note-0.md']);
    expect(await paths(second.engine, 'rhubarb')).toEqual(['Notes/note-0.md']);
    expect(await paths(second.engine, 'tok1x')).toEqual([]);
    expect(second.engine.noteCount).toBe(2);
  });

  it('stop releases the debounce timer and later events are ignored', async () => {
    const { scheduler, indexer } = await started();
    indexer.fileChanged('Notes/note-1.md');
    expect(scheduler.pendingTimers).toBe(1);
    indexer.stop();
    expect(scheduler.pendingTimers).toBe(0);
    indexer.fileChanged('Notes/note-1.md');
    expect(scheduler.pendingTimers).toBe(0);
  });
});

describe('DeviceIndexer: slicing, exclusions, bad files', () => {
  it('yields to the UI so no slice runs much past its budget', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 30);
    vault.readCostMs = 10;
    const { indexer, engine } = await harness(vault, scheduler, { sliceMs: 25 });
    await indexer.start();
    expect(engine.noteCount).toBe(30);
    // 30 reads of 10 ms with a 25 ms budget: a turn at least every third file.
    expect(scheduler.yields.length).toBeGreaterThanOrEqual(10);
    const gaps = scheduler.yields.map((at, i) => at - (scheduler.yields[i - 1] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(30);
  });

  it('honours exclude globs, and drops notes that became excluded since the last run', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, {
      'Templates/daily.md': 'template placeholder',
      'Notes/keep.md': 'placeholder kept',
      '.trash/old.md': 'placeholder trashed',
      'Notes/drawing.excalidraw.md': 'placeholder drawing',
    });
    const first = await harness(vault, scheduler, { key: 'exclude', exclude: ['Templates/**'] });
    await first.indexer.start();
    expect((await paths(first.engine, 'placeholder')).sort()).toEqual([
      'Notes/drawing.excalidraw.md',
      'Notes/keep.md',
    ]);
    first.store.close();
    const second = await harness(vault, scheduler, {
      key: 'exclude',
      exclude: ['Templates/**', '*.excalidraw.md'],
    });
    await second.indexer.start();
    expect(await paths(second.engine, 'placeholder')).toEqual(['Notes/keep.md']);
    expect((await second.store.allFiles()).map((f) => f.path)).toEqual(['Notes/keep.md']);
  });

  it('reports broken front matter, binary files, huge notes and read errors, and indexes the rest', async () => {
    const scheduler = new ManualTimeSlicer();
    const huge = `# Log\n\n${'line of a very long log file with marmalade\n'.repeat(125_000)}`;
    const vault = new FakeVault(scheduler, {
      'broken.md': '---\ntitle: [unclosed\ntags: x\n---\nbody mentions quinoa\n',
      'image.md': '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR',
      'huge.md': huge,
      'unreadable.md': 'never read',
      'fine.md': 'plain note about quinoa',
      'empty.md': '',
      'control.md': 'bell \u0007 and escape \u001b[31m red quinoa',
    });
    vault.failReads.add('unreadable.md');
    const { indexer, engine, problems } = await harness(vault, scheduler);
    await indexer.start();
    const byPath = new Map(problems.map((p) => [p.path, p]));
    expect(byPath.get('broken.md')).toMatchObject({
      line: expect.any(Number),
      message: expect.stringMatching(/front matter is not valid YAML/),
    });
    expect(byPath.get('image.md')?.message).toMatch(/not text/);
    expect(byPath.get('huge.md')?.message).toMatch(
      /only the first 1,000,000 of 5,500,007 characters/,
    );
    expect(byPath.get('unreadable.md')?.message).toMatch(/EIO/);
    expect((await paths(engine, 'quinoa')).sort()).toEqual(['broken.md', 'control.md', 'fine.md']);
    expect(await paths(engine, 'marmalade')).toEqual(['huge.md']);
    expect(engine.hasNote('image.md')).toBe(true);
    expect(indexer.state.phase).toBe('idle');
  });
});

describe('DeviceIndexer: embeddings', () => {
  it('a model change re-embeds in the background and never mixes vectors', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 5);
    const first = await harness(vault, scheduler, {
      key: 'model-change',
      embedder: new FakeEmbedder('model-a', 16),
    });
    await first.indexer.start();
    first.store.close();
    const modelB = new FakeEmbedder('model-b', 32);
    const second = await harness(vault, scheduler, { key: 'model-change', embedder: modelB });
    await second.indexer.start();
    expect(modelB.embedded.length).toBe(5);
    expect(await second.store.vectorsOf('model-a')).toEqual(new Map());
    expect((await second.store.vectorsOf('model-b')).size).toBe(5);
  });

  it('an embedding failure pauses embedding, keeps keyword search, and retries later', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = sampleVault(scheduler, 3);
    const embedder = new FakeEmbedder();
    embedder.failNext = new Error('connect ECONNREFUSED 127.0.0.1:11434');
    const { indexer, engine, problems } = await harness(vault, scheduler, { embedder });
    await indexer.start();
    expect(problems.map((p) => p.message)).toEqual([
      'embedding paused: connect ECONNREFUSED 127.0.0.1:11434; keyword search still works',
    ]);
    expect(engine.chunksWithoutVectors('Notes/note-0.md').length).toBe(1);
    expect(await paths(engine, 'tok0x')).toEqual(['Notes/note-0.md']);
    scheduler.advance(60_000);
    await indexer.idle();
    expect(engine.chunksWithoutVectors('Notes/note-0.md')).toEqual([]);
  });
});

describe('SearchStore', () => {
  it('deletes databases of older schema versions of the same vault only', async () => {
    const { openDB } = await import('idb');
    const old = await openDB(searchStoreName('versioned', 0), 1);
    old.close();
    const other = await openDB(searchStoreName('another', 0), 1);
    other.close();
    const store = await SearchStore.open('versioned');
    opened.push(store);
    const names = (await indexedDB.databases()).map((db) => db.name);
    expect(names).toContain(searchStoreName('versioned'));
    expect(names).not.toContain(searchStoreName('versioned', 0));
    expect(names).toContain(searchStoreName('another', 0));
  });

  it('refuses a vault key that could collide with other names', async () => {
    await expect(SearchStore.open('')).rejects.toThrow(/vault key/);
    await expect(SearchStore.open('a/b')).rejects.toThrow(/vault key/);
  });

  it('stores vectors as Float32Array', async () => {
    const store = await SearchStore.open('floats');
    opened.push(store);
    await store.putVectors('m', new Map([['h1', new Float32Array([0.5, -1, 2])]]));
    const got = (await store.vectorsFor('m', ['h1', 'missing'])).get('h1');
    expect(got).toBeInstanceOf(Float32Array);
    expect([...got!]).toEqual([0.5, -1, 2]);
    expect(await store.vectorsFor('other', ['h1'])).toEqual(new Map());
  });
});
