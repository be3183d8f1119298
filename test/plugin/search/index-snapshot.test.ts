import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkNote } from '../../../shared/search/chunk';
import type { NoteChunk } from '../../../shared/search/chunk';
import { ExcludeRules } from '../../../shared/search/exclude-rules';
import type { EngineSnapshot } from '../../../plugin/search/engine-snapshot';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';
import type { NoteProblem } from '../../../plugin/search/note-input';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import type { SearchEngine } from '../../../plugin/search/search-engine';
import { SearchStore } from '../../../plugin/search/search-store';
import { DeviceIndexer } from '../../../plugin/search/device-indexer';
import { FakeEmbedder } from './fake-embedder';
import { FakeVault, ManualTimeSlicer } from './fakes';

const opened: SearchStore[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});

function chunksOf(path: string, markdown: string): NoteChunk[] {
  const parsed = noteInputFromMarkdown(path, markdown);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return chunkNote(parsed.input);
}

function note(title: string, body: string, tags: string[] = []): string {
  return `---\ntitle: ${title}\ntags: [${tags.join(', ')}]\n---\n${body}\n`;
}

/** Notes with shared and distinct words, folders and tags, some long enough for several chunks. */
function corpus(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 40 + (i % 5) * 120 }, (_, w) => `w${(i * 7 + w * 3) % 53}`);
    files[`${i % 3 === 0 ? 'Work' : 'Home'}/note-${i}.md`] = note(
      `Note ${i} gardening`,
      `## Part one\n\nuniq${i} ${words.join(' ')} planting seeds.\n\n## Part two\n\nwatering ${words.slice(0, 30).join(' ')}.`,
      i % 2 === 0 ? ['even'] : ['odd'],
    );
  }
  return files;
}

const QUERIES: Array<[string, Record<string, string>]> = [
  ['gardening', {}],
  ['w5 w17 planting', {}],
  ['how do I water the plants', {}],
  ['uniq7', {}],
  ['w3 seeds', { folder: 'Work' }],
  ['w11', { tag: 'odd' }],
  ['plantin', {}],
  ['gardenning', {}],
];

async function results(engine: SearchEngine) {
  const all = [];
  for (const [query, options] of QUERIES) {
    const hits = await engine.search(query, { limit: 20, ...options });
    all.push(hits.map((hit) => [hit.chunkId, hit.citation.score.toFixed(12)]));
  }
  return all;
}

function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

describe('engine snapshot', () => {
  it('a loaded snapshot answers exactly as the engine it was taken from and as a fresh build', async () => {
    const files = corpus(30);
    const built = createSearchEngine();
    for (const [path, markdown] of Object.entries(files))
      built.upsertNote(path, chunksOf(path, markdown));
    // Churn before the snapshot: removed and replaced docs must not leak into it.
    built.removeNote('Home/note-1.md');
    built.upsertNote('Home/note-2.md', chunksOf('Home/note-2.md', files['Home/note-2.md']!));
    const fresh = createSearchEngine();
    for (const [path, markdown] of Object.entries(files)) {
      if (path !== 'Home/note-1.md') fresh.upsertNote(path, chunksOf(path, markdown));
    }
    const expected = await results(fresh);
    expect(await results(built)).toEqual(expected);

    const snapshot = structuredClone(drain(built.takeSnapshot(() => 'v1')));
    expect(await results(built)).toEqual(expected);
    const loaded = createSearchEngine();
    loaded.loadSnapshot(snapshot);
    for (const [path, markdown] of Object.entries(files)) {
      if (path !== 'Home/note-1.md')
        expect(loaded.adoptNote(path, 'v1', chunksOf(path, markdown))).toBe(true);
    }
    expect(loaded.finishRestore()).toEqual([]);
    expect(loaded.changedSinceSnapshot).toBe(false);
    expect(loaded.noteCount).toBe(29);
    expect(await results(loaded)).toEqual(expected);
  });

  it('searches between the steps of taking a snapshot answer as before it', async () => {
    const files = corpus(30);
    const engine = createSearchEngine({ embedder: new FakeEmbedder() });
    for (const [path, markdown] of Object.entries(files))
      engine.upsertNote(path, chunksOf(path, markdown));
    // Removals and replacements, so the compaction renumbers docs.
    for (const path of ['Home/note-1.md', 'Home/note-4.md', 'Work/note-9.md']) {
      engine.removeNote(path);
    }
    engine.upsertNote('Home/note-2.md', chunksOf('Home/note-2.md', files['Home/note-2.md']!));
    const expected = await results(engine);
    const steps = engine.takeSnapshot(() => 'v1');
    let pauses = 0;
    for (let step = steps.next(); !step.done; step = steps.next()) {
      pauses++;
      expect(await results(engine), `after step ${pauses}`).toEqual(expected);
    }
    expect(pauses).toBeGreaterThan(3);
    expect(await results(engine)).toEqual(expected);
  });

  it('refuses a note whose version or chunks differ, and drops notes nobody adopted', async () => {
    const files = corpus(4);
    const built = createSearchEngine();
    for (const [path, markdown] of Object.entries(files))
      built.upsertNote(path, chunksOf(path, markdown));
    const snapshot = drain(built.takeSnapshot(() => 'v1'));
    const loaded = createSearchEngine();
    loaded.loadSnapshot(snapshot);
    const changed = note('Note 1', 'entirely new words');
    expect(loaded.adoptNote('Home/note-1.md', 'v2', chunksOf('Home/note-1.md', changed))).toBe(
      false,
    );
    expect(loaded.adoptNote('Home/note-2.md', 'v1', chunksOf('Home/note-2.md', changed))).toBe(
      false,
    );
    loaded.upsertNote('Home/note-1.md', chunksOf('Home/note-1.md', changed));
    expect(
      loaded.adoptNote(
        'Work/note-0.md',
        'v1',
        chunksOf('Work/note-0.md', files['Work/note-0.md']!),
      ),
    ).toBe(true);
    expect(loaded.finishRestore().sort()).toEqual(['Home/note-2.md', 'Work/note-3.md']);
    expect((await loaded.search('entirely'))[0]?.citation.path).toBe('Home/note-1.md');
    expect(await loaded.search('uniq1')).toEqual([]);
    expect(await loaded.search('uniq2')).toEqual([]);
    expect((await loaded.search('uniq0'))[0]?.citation.path).toBe('Work/note-0.md');
  });

  it('brings the vectors of its model along, and ignores those of another model', async () => {
    const files = corpus(6);
    const embedder = new FakeEmbedder('model-a');
    const built = createSearchEngine({ embedder });
    for (const [path, markdown] of Object.entries(files)) {
      const chunks = chunksOf(path, markdown);
      built.upsertNote(path, chunks, (hash) =>
        embedder.vectorOf(chunks.find((chunk) => chunk.textHash === hash)!.text),
      );
    }
    const snapshot = structuredClone(drain(built.takeSnapshot(() => 'v1')));
    expect(snapshot.vectors?.model).toBe('model-a');
    const adoptAll = (engine: SearchEngine) => {
      engine.loadSnapshot(snapshot);
      for (const [path, markdown] of Object.entries(files))
        engine.adoptNote(path, 'v1', chunksOf(path, markdown));
      engine.finishRestore();
    };
    const same = createSearchEngine({ embedder: new FakeEmbedder('model-a') });
    adoptAll(same);
    expect(same.vectorsFromSnapshot).toBe(true);
    expect(same.chunksWithoutVectors('Home/note-1.md')).toEqual([]);
    expect(await results(same)).toEqual(await results(built));
    expect((await same.search('planting seeds'))[0]?.mode).toBe('hybrid');
    const other = createSearchEngine({ embedder: new FakeEmbedder('model-b') });
    adoptAll(other);
    expect(other.vectorsFromSnapshot).toBe(false);
    expect(other.chunksWithoutVectors('Home/note-1.md').length).toBeGreaterThan(0);
    expect((await other.search('planting seeds'))[0]?.mode).toBe('keyword');
  });

  it('refuses snapshots of another version or analyzer, and corrupt ones, leaving the engine empty', () => {
    const built = createSearchEngine();
    built.upsertNote('a.md', chunksOf('a.md', note('A', 'alpha beta')));
    const good = drain(built.takeSnapshot(() => 'v1'));
    const variants: Array<[string, unknown, RegExp]> = [
      ['old version', { ...good, version: 0 }, /version 0/],
      ['other analyzer', { ...good, analyzer: 'en-stop-1' }, /analyzer/],
      ['not an object', 'garbage', /not an object/],
      ['cut index', { ...good, index: { ...good.index, docs: [] } }, /keyword index/],
      ['note table', { ...good, docCounts: new Uint32Array([5]) }, /claims doc|note table/],
      ['chunk ids', { ...good, chunkIds: `${good.chunkIds}\u0000x` }, /note table/],
    ];
    for (const [what, snapshot, message] of variants) {
      const engine = createSearchEngine();
      engine.upsertNote('b.md', chunksOf('b.md', note('B', 'gamma')));
      expect(() => engine.loadSnapshot(snapshot), what).toThrow(message);
      expect(engine.noteCount, what).toBe(0);
      expect(engine.finishRestore(), what).toEqual([]);
    }
  });
});

describe('DeviceIndexer with snapshots', () => {
  let storeCounter = 0;

  /** An indexer on the store `key`, started; `prepare` may wrap the store's reads first. */
  async function startIndexer(
    vault: FakeVault,
    scheduler: ManualTimeSlicer,
    key: string,
    embedder?: FakeEmbedder,
    prepare?: (store: SearchStore) => void,
  ) {
    const store = await SearchStore.open(key);
    opened.push(store);
    prepare?.(store);
    const engine = createSearchEngine({ embedder: embedder ?? null });
    const problems: NoteProblem[] = [];
    const indexer = new DeviceIndexer({
      source: vault,
      store,
      engine,
      embedder: embedder ?? null,
      scheduler,
      exclude: new ExcludeRules([]),
      snapshotDelayMs: 10_000,
      onProblem: (problem) => problems.push(problem),
    });
    return { store, engine, indexer, problems, started: indexer.start() };
  }

  async function open(
    vault: FakeVault,
    scheduler: ManualTimeSlicer,
    key: string,
    embedder?: FakeEmbedder,
  ) {
    const started = await startIndexer(vault, scheduler, key, embedder);
    await started.started;
    return started;
  }

  const snapshotProblems = (problems: NoteProblem[]) =>
    problems.filter((problem) => problem.message.includes('snapshot'));

  it('the first start writes a snapshot; a restart uses it and answers the same', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(12));
    const key = `snap${++storeCounter}`;
    const embedder = new FakeEmbedder();
    const first = await open(vault, scheduler, key, embedder);
    expect(await first.store.readSnapshot()).toBeDefined();
    expect(first.engine.changedSinceSnapshot).toBe(false);
    const expected = await results(first.engine);
    first.store.close();

    vault.reads.length = 0;
    const restartEmbedder = new FakeEmbedder();
    const second = await open(vault, scheduler, key, restartEmbedder);
    expect(snapshotProblems(second.problems)).toEqual([]);
    expect(vault.reads).toEqual([]);
    expect(restartEmbedder.calls).toBe(0);
    expect(second.engine.changedSinceSnapshot).toBe(false);
    expect(await results(second.engine)).toEqual(expected);
  });

  it('changes after a snapshot load are searchable, snapshotted after the delay, and survive a restart', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(8));
    const key = `snap${++storeCounter}`;
    (await open(vault, scheduler, key)).store.close();

    const second = await open(vault, scheduler, key);
    const before = (await second.store.readSnapshot()) as EngineSnapshot;
    vault.write('Home/note-1.md', note('Note 1', 'now about beekeeping'));
    second.indexer.fileChanged('Home/note-1.md');
    vault.delete('Home/note-2.md');
    second.indexer.fileDeleted('Home/note-2.md');
    vault.write('Home/new.md', note('New', 'fresh compost'));
    second.indexer.fileChanged('Home/new.md');
    scheduler.advance(500);
    await second.indexer.idle();
    const check = async (engine: SearchEngine) => {
      expect((await engine.search('beekeeping'))[0]?.citation.path).toBe('Home/note-1.md');
      expect(await engine.search('uniq1')).toEqual([]);
      expect(await engine.search('uniq2')).toEqual([]);
      expect((await engine.search('compost'))[0]?.citation.path).toBe('Home/new.md');
      expect((await engine.search('uniq5'))[0]?.citation.path).toBe('Home/note-5.md');
    };
    await check(second.engine);
    // Not yet: the snapshot waits for the quiet period.
    expect(second.engine.changedSinceSnapshot).toBe(true);
    expect(await second.store.readSnapshot()).toEqual(before);
    scheduler.advance(10_000);
    await second.indexer.idle();
    expect(second.engine.changedSinceSnapshot).toBe(false);
    await check(second.engine);
    second.store.close();

    vault.reads.length = 0;
    const third = await open(vault, scheduler, key);
    expect(snapshotProblems(third.problems)).toEqual([]);
    expect(vault.reads).toEqual([]);
    expect(third.engine.changedSinceSnapshot).toBe(false);
    await check(third.engine);
  });

  it('a snapshot older than the stored files is corrected from them, without reading the vault', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(6));
    const key = `snap${++storeCounter}`;
    const first = await open(vault, scheduler, key);
    const stale = await first.store.readSnapshot();
    vault.write('Home/note-1.md', note('Note 1', 'now about beekeeping'));
    first.indexer.fileChanged('Home/note-1.md');
    vault.delete('Home/note-2.md');
    first.indexer.fileDeleted('Home/note-2.md');
    scheduler.advance(500);
    await first.indexer.idle();
    // Closed before the delayed snapshot: the store's files are newer than its snapshot.
    first.indexer.stop();
    expect(await first.store.readSnapshot()).toEqual(stale);
    first.store.close();

    vault.reads.length = 0;
    const second = await open(vault, scheduler, key);
    expect(vault.reads).toEqual([]);
    expect(snapshotProblems(second.problems)).toEqual([]);
    expect((await second.engine.search('beekeeping'))[0]?.citation.path).toBe('Home/note-1.md');
    expect(await second.engine.search('uniq1')).toEqual([]);
    expect(await second.engine.search('uniq2')).toEqual([]);
    expect((await second.engine.search('uniq4'))[0]?.citation.path).toBe('Home/note-4.md');
    // …and the corrected index was snapshotted at the end of the start.
    expect(second.engine.changedSinceSnapshot).toBe(false);
  });

  it('an unreadable, old or corrupt snapshot is reported and the index rebuilt from the store', async () => {
    const corruptions: Array<[string, (snapshot: EngineSnapshot) => unknown]> = [
      ['old version', (s) => ({ ...s, version: 0 })],
      ['corrupt postings', (s) => ({ ...s, index: { ...s.index, offsets: [] } })],
      ['not a snapshot', () => 42],
    ];
    for (const [what, corrupt] of corruptions) {
      const scheduler = new ManualTimeSlicer();
      const vault = new FakeVault(scheduler, corpus(6));
      const key = `snap${++storeCounter}`;
      const first = await open(vault, scheduler, key);
      const expected = await results(first.engine);
      const good = (await first.store.readSnapshot()) as EngineSnapshot;
      await first.store.putSnapshot(corrupt(good) as EngineSnapshot);
      first.store.close();

      vault.reads.length = 0;
      const second = await open(vault, scheduler, key);
      expect(
        snapshotProblems(second.problems).map((p) => p.message),
        what,
      ).toEqual([expect.stringMatching(/snapshot not used .*re-indexing 6 stored files/)]);
      expect(vault.reads, what).toEqual([]);
      expect(await results(second.engine), what).toEqual(expected);
      // Rewritten at the end of the start, so the next one uses it again.
      expect(((await second.store.readSnapshot()) as EngineSnapshot).version, what).toBe(1);
    }
  });

  /**
   * Starts an indexer whose restore cannot read the stored files (nor the vectors) until
   * `release()`: what a search answers then comes from the snapshot and the records it asks for.
   */
  async function openHeld(
    vault: FakeVault,
    scheduler: ManualTimeSlicer,
    key: string,
    embedder: FakeEmbedder,
  ) {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const asked: string[][] = [];
    const { store, engine, indexer, problems, started } = await startIndexer(
      vault,
      scheduler,
      key,
      embedder,
      (store) => {
        const filesAfter = store.filesAfter.bind(store);
        store.filesAfter = async (...args) => {
          await held;
          return filesAfter(...args);
        };
        const getFiles = store.getFiles.bind(store);
        store.getFiles = (paths) => {
          asked.push([...paths]);
          return getFiles(paths);
        };
      },
    );
    while (!indexer.ready) await new Promise((resolve) => setTimeout(resolve, 0));
    // The snapshot's vectors are read after it turns ready; wait for them too.
    while (!engine.vectorsFromSnapshot) await new Promise((resolve) => setTimeout(resolve, 0));
    return { store, engine, indexer, problems, asked, release, started };
  }

  it('a restart answers from the snapshot before the stored files are read, reading only its hits', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(150));
    const key = `snap${++storeCounter}`;
    const first = await open(vault, scheduler, key, new FakeEmbedder());
    const expected = await results(first.engine);
    const uniq = await first.engine.search('uniq7');
    first.store.close();

    vault.reads.length = 0;
    const embedder = new FakeEmbedder();
    const second = await openHeld(vault, scheduler, key, embedder);
    expect(second.engine.noteCount).toBe(0);
    // Searchable, but whole-note views (related notes) wait for the restore.
    expect(second.indexer.restored).toBe(false);
    expect(await second.engine.search('uniq7')).toEqual(uniq);
    // Its candidates only (60 chunks at most), not the 150 notes.
    const read = new Set(second.asked.flat());
    expect(read.size).toBeGreaterThan(0);
    expect(read.size).toBeLessThanOrEqual(60);
    expect(second.engine.noteCount).toBe(read.size);
    // Same hits, scores and order as the engine the snapshot was taken from, filters included.
    expect(await results(second.engine)).toEqual(expected);

    second.release();
    await second.started;
    expect(second.indexer.restored).toBe(true);
    expect(second.engine.noteCount).toBe(150);
    expect(await results(second.engine)).toEqual(expected);
    // Notes adopted early kept the snapshot's vectors: nothing re-embedded, nothing re-read.
    expect(embedder.embedded).toEqual([
      'uniq7',
      ...QUERIES.map(([query]) => query),
      ...QUERIES.map(([query]) => query),
    ]);
    expect(vault.reads).toEqual([]);
    expect(snapshotProblems(second.problems)).toEqual([]);
  });

  it('a search before the restore finished answers a note changed since the snapshot from its stored chunks', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(6));
    const key = `snap${++storeCounter}`;
    const first = await open(vault, scheduler, key, new FakeEmbedder());
    vault.write('Home/note-1.md', note('Note 1', 'now about beekeeping and uniq4'));
    first.indexer.fileChanged('Home/note-1.md');
    scheduler.advance(500);
    await first.indexer.idle();
    // Closed before the delayed snapshot: the stored file of note-1 is newer than the snapshot.
    first.indexer.stop();
    first.store.close();

    vault.reads.length = 0;
    const embedder = new FakeEmbedder();
    const second = await openHeld(vault, scheduler, key, embedder);
    // The snapshot has note-1's old text under uniq1; the stored file is the new one.
    expect(await second.engine.search('uniq1')).toEqual([]);
    expect((await second.engine.search('beekeeping'))[0]?.citation.path).toBe('Home/note-1.md');
    const paths = (await second.engine.search('uniq4')).map((hit) => hit.citation.path);
    expect(paths.slice(0, 2).sort()).toEqual(['Home/note-1.md', 'Home/note-4.md']);
    second.release();
    await second.started;
    expect((await second.engine.search('beekeeping'))[0]?.citation.path).toBe('Home/note-1.md');
    expect(await second.engine.search('uniq1')).toEqual([]);
    expect(vault.reads).toEqual([]);
    // note-1's new chunks were embedded in the first session: none is embedded again.
    expect(embedder.embedded.filter((text) => !/^(uniq|beekeeping)/.test(text))).toEqual([]);
  });

  it('a vector part left by another write is refused: rebuilt from the store, nothing re-embedded', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, corpus(6));
    const key = `snap${++storeCounter}`;
    const first = await open(vault, scheduler, key, new FakeEmbedder());
    const expected = await results(first.engine);
    const raw = await openDB(first.store.name);
    await raw.put('snapshot', { generation: 'another', data: new Float32Array(64) }, 'vectors-0');
    raw.close();
    first.store.close();

    const embedder = new FakeEmbedder();
    const second = await open(vault, scheduler, key, embedder);
    expect(snapshotProblems(second.problems).map((p) => p.message)).toEqual([
      expect.stringMatching(/vector part 0 is missing or from another write/),
    ]);
    expect(embedder.calls).toBe(0);
    expect(await results(second.engine)).toEqual(expected);
  });
});
