import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VaultChange } from '../../../companion/search';
import { SAMPLE_VAULT, tempDir } from '../helpers/app';
import { FIXTURE_VAULTS, HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function indexedPaths(f: IndexerFixture): string[] {
  return f.db
    .prepare<[], { path: string }>('SELECT path FROM index_files WHERE error IS NULL ORDER BY path')
    .all()
    .map((row) => row.path);
}

describe('initial scan', () => {
  it('indexes every note of the sample vault with its kind, metadata and chunks', async () => {
    fixture = await startIndexer({ source: SAMPLE_VAULT });
    await fixture.indexer.whenIdle();
    const status = fixture.indexer.indexStatus();
    expect(status).toMatchObject({ files: 8, pending: 0, failed: [], embedding: null });
    expect(status.chunks).toBeGreaterThanOrEqual(8);
    expect(indexedPaths(fixture)).not.toContain('.obsidian/plugins/cairn/data.json');

    const reminder = fixture.db
      .prepare('SELECT kind, note_id, title FROM index_files WHERE path = ?')
      .get('Cairn/Reminders/call-the-bank.md');
    expect(reminder).toEqual({
      kind: 'reminder',
      note_id: '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13',
      title: 'Call the bank',
    });

    const hits = fixture.indexer.queries.keyword('schengen', {}, 10);
    const [chunk] = fixture.indexer.queries.chunks(hits.map((hit) => hit.chunkId));
    expect(chunk).toMatchObject({
      path: 'Travel/Visa rules.md',
      fileType: 'note',
      noteId: '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
      title: 'Visa rules summary',
      aliases: ['Schengen visa'],
    });
    expect(chunk?.tags).toEqual(expect.arrayContaining(['visa', 'travel']));
  });

  it('skips dot-folders, the plugin exclude globs and the option globs; reads .md, .txt and .pdf only', async () => {
    fixture = await startIndexer({
      source: join(FIXTURE_VAULTS, 'mixed'),
      excludeGlobs: ['Notes/Deep/**'],
    });
    await fixture.indexer.whenIdle();
    expect(indexedPaths(fixture)).toEqual([
      'Notes/Café recipes.md',
      'Notes/Heading title.md',
      'Notes/plain.txt',
      'Reminders/renew-passport.md',
    ]);
    expect(fixture.indexer.queries.keyword('zeppelins', {}, 10)).toEqual([]);
  });

  it('takes titles from front matter, then the first H1, then the file name; merges inline tags', async () => {
    fixture = await startIndexer({ source: join(FIXTURE_VAULTS, 'mixed') });
    await fixture.indexer.whenIdle();
    const rows = fixture.db
      .prepare<[], { path: string; title: string; tags: string; aliases: string; kind: string }>(
        'SELECT path, title, tags, aliases, kind FROM index_files ORDER BY path',
      )
      .all();
    const byPath = new Map(rows.map((row) => [row.path, row]));
    expect(byPath.get('Notes/Café recipes.md')).toMatchObject({ title: 'Café recipes' });
    expect(JSON.parse(byPath.get('Notes/Café recipes.md')!.tags)).toEqual([
      'cooking',
      'Food/Baking',
      'dessert',
    ]);
    expect(JSON.parse(byPath.get('Notes/Café recipes.md')!.aliases)).toEqual([
      'Coffee house recipes',
      'Bistro menu',
    ]);
    expect(byPath.get('Notes/Heading title.md')?.title).toBe('Quarterly planning');
    expect(byPath.get('Notes/Deep/Deeper/Gardening log.md')).toMatchObject({
      title: 'Gardening log',
      tags: '["garden/vegetables"]',
    });
    expect(byPath.get('Reminders/renew-passport.md')?.kind).toBe('reminder');
  });

  it('refuses a symlink that leads outside the vault and names it in failed; follows one inside', async () => {
    const outside = tempDir('outside');
    writeFileSync(join(outside.path, 'secret.md'), 'top secret outside text');
    try {
      fixture = await startIndexer({ files: { 'Real.md': 'inside text about owls' } });
      symlinkSync(join(outside.path, 'secret.md'), join(fixture.vault, 'Escape.md'));
      symlinkSync(join(fixture.vault, 'Real.md'), join(fixture.vault, 'Alias.md'));
      symlinkSync(outside.path, join(fixture.vault, 'EscapeFolder'));
      await fixture.indexer.rescan();
      expect(fixture.indexer.queries.keyword('secret', {}, 10)).toEqual([]);
      expect(fixture.indexer.indexStatus().failed).toEqual([
        { path: 'Escape.md', error: 'symlink leading outside the vault; not read' },
      ]);
      expect(indexedPaths(fixture)).toEqual(['Alias.md', 'Real.md']);
    } finally {
      outside.remove();
    }
  });
});

describe('restart and content hashes', () => {
  it('a restart re-reads and re-embeds nothing; a touched file is re-hashed but not re-chunked', async () => {
    const embedder = new HashingEmbedder();
    fixture = await startIndexer({ source: SAMPLE_VAULT, embedder });
    await fixture.indexer.whenEmbedded();
    const distinct = fixture.indexer.store.distinctTextCount();
    expect(embedder.texts).toBe(distinct);
    expect(fixture.indexer.indexStatus().embedding).toEqual({ model: 'test-hashing@1', dims: 64 });

    const again = await fixture.restart({ embedder });
    await again.whenEmbedded();
    expect(again.indexedCount).toBe(0);
    expect(embedder.texts).toBe(distinct);

    // Same bytes, new mtime: hashed, found equal, not re-indexed.
    const note = join(fixture.vault, 'Garden.md');
    const future = new Date(Date.now() + 60_000);
    const { utimesSync } = await import('node:fs');
    utimesSync(note, future, future);
    const third = await fixture.restart({ embedder });
    await third.whenEmbedded();
    expect(third.indexedCount).toBe(0);
    expect(embedder.texts).toBe(distinct);
  });

  it('a file edited while the companion was down is re-indexed; only its changed chunk is embedded', async () => {
    const embedder = new HashingEmbedder();
    fixture = await startIndexer({
      embedder,
      files: {
        'Long.md': '## One\nFirst section about herons.\n\n## Two\nSecond section about egrets.\n',
      },
    });
    await fixture.indexer.whenEmbedded();
    expect(embedder.texts).toBe(2);
    fixture.write(
      'Long.md',
      '## One\nFirst section about herons.\n\n## Two\nSecond section about storks now.\n',
    );
    const again = await fixture.restart({ embedder });
    await again.whenEmbedded();
    expect(again.indexedCount).toBe(1);
    expect(embedder.texts).toBe(3);
    expect(again.queries.keyword('storks', {}, 5)).toHaveLength(1);
    expect(again.queries.keyword('egrets', {}, 5)).toEqual([]);
    // The vector of the replaced text is dropped once the indexer is idle.
    expect(fixture.db.prepare('SELECT count(*) AS n FROM index_vectors').get()).toEqual({ n: 2 });
  });

  it('a file deleted while down is dropped on the next scan, with a delete event', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha', 'B.md': 'bravo' } });
    await fixture.indexer.whenIdle();
    rmSync(join(fixture.vault, 'B.md'));
    const changes: VaultChange[] = [];
    fixture.indexer.onChange((change) => changes.push(change));
    await fixture.indexer.rescan();
    expect(changes).toEqual([{ type: 'delete', path: 'B.md', kind: 'note' }]);
    expect(indexedPaths(fixture)).toEqual(['A.md']);
  });
});

describe('embeddings', () => {
  it('a model change re-embeds everything in the background, never mixes dimensions, then drops the old vectors', async () => {
    const first = new HashingEmbedder({ id: 'test-a', dims: 16 });
    fixture = await startIndexer({ source: SAMPLE_VAULT, embedder: first });
    await fixture.indexer.whenEmbedded();
    const distinct = fixture.indexer.store.distinctTextCount();

    const second = new HashingEmbedder({ id: 'test-b', dims: 24 });
    const indexer = await fixture.restart({ embedder: second });
    await indexer.whenEmbedded();
    expect(second.texts).toBe(distinct);
    expect(indexer.indexStatus().embedding).toEqual({ model: 'test-b', dims: 24 });
    expect(indexer.store.models().map((model) => model.model)).toEqual(['test-b']);
    const tables = fixture.db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE name GLOB 'index_vec_*' AND type = 'table' AND name NOT GLOB '*_*_*_*'",
      )
      .all()
      .map((row) => row.name);
    expect(tables).toHaveLength(1);
    const query = new Float32Array(24).fill(0.2);
    expect(indexer.queries.vector(query, {}, 3)).toHaveLength(3);
    expect(() => indexer.queries.vector(new Float32Array(16), {}, 3)).toThrow(/24/);
  });

  it('without an embedder the index is keyword-only and says so', async () => {
    fixture = await startIndexer({ source: SAMPLE_VAULT });
    await fixture.indexer.whenEmbedded();
    expect(fixture.indexer.indexStatus().embedding).toBeNull();
    expect(fixture.indexer.queries.embeddingModel()).toBeNull();
    expect(fixture.indexer.queries.vector(new Float32Array(64), {}, 5)).toEqual([]);
  });

  it('a failing embedder leaves keyword search working and retries later', async () => {
    const embedder = new HashingEmbedder();
    embedder.failNext = 1;
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      embedder,
      embeddings: { retryDelayMs: 20 },
    });
    await fixture.indexer.whenEmbedded();
    expect(fixture.indexer.queries.keyword('visa', {}, 5).length).toBeGreaterThan(0);
    await expect
      .poll(() => fixture!.indexer.indexStatus().embedding, { timeout: 2000 })
      .toEqual({ model: 'test-hashing@1', dims: 64 });
    expect(fixture.indexer.embeddings?.lastError).toBeNull();
  });
});

describe('status', () => {
  it('counts pending files while the scan runs and 0 once caught up', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`N${i}.md`] = `note number ${i}`;
    fixture = await startIndexer({ files });
    expect(fixture.indexer.indexStatus().pending).toBeGreaterThan(0);
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.indexStatus()).toMatchObject({ files: 40, pending: 0 });
  });

  it('lists a failed file, then clears it once the file is fixed', async () => {
    fixture = await startIndexer({ files: { 'Bin.md': new Uint8Array([0x89, 0x50, 0, 0, 1]) } });
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.indexStatus().failed).toEqual([
      { path: 'Bin.md', error: 'binary file, not Markdown text (NUL byte at offset 2)' },
    ]);
    fixture.write('Bin.md', 'now real text');
    await fixture.indexer.rescan();
    expect(fixture.indexer.indexStatus()).toMatchObject({ files: 1, failed: [] });
  });
});

describe('folders created after start', () => {
  it('rescan picks up a new nested folder', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha' } });
    await fixture.indexer.whenIdle();
    mkdirSync(join(fixture.vault, 'New/Sub'), { recursive: true });
    writeFileSync(join(fixture.vault, 'New/Sub/B.md'), 'bravo');
    await fixture.indexer.rescan();
    expect(indexedPaths(fixture)).toEqual(['A.md', 'New/Sub/B.md']);
  });
});

describe('robustness', () => {
  it('logs paths and counts, never note text (trace level, bad front matter included)', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../../companion/logging');
    fixture = await startIndexer({
      logger: createLogger('trace', { write: (line: string) => void lines.push(line) }),
      embedder: new HashingEmbedder(),
      files: {
        'Secret.md': '---\ntags: [ok, "secret-tag-value!"]\n---\nmy bank pin is 4921 swordfish\n',
        'Broken.md': '---\ntitle: "unterminated swordfish\n---\nbody swordfish\n',
        'bin.md': new Uint8Array([0x73, 0x77, 0, 0x6f]),
      },
    });
    await fixture.indexer.whenEmbedded();
    const log = lines.join('\n');
    expect(log).toContain('Secret.md');
    expect(log).toContain('vault scan done');
    expect(log).not.toMatch(/swordfish|4921|secret-tag-value/);
  });

  it('a vault folder that vanishes makes a rescan log an error, not throw', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha' } });
    await fixture.indexer.whenIdle();
    rmSync(fixture.vault, { recursive: true });
    await expect(fixture.indexer.rescan()).resolves.toBeUndefined();
    expect(fixture.indexer.indexStatus()).toMatchObject({ files: 1, pending: 0 });
  });

  it('an embedder with impossible dimensions leaves the index keyword-only', async () => {
    const broken = new HashingEmbedder({ id: 'broken', dims: 0 });
    fixture = await startIndexer({ files: { 'A.md': 'alpha words' }, embedder: broken });
    await fixture.indexer.whenEmbedded();
    expect(fixture.indexer.embeddings?.lastError).toMatch(/dims must be an integer/);
    expect(fixture.indexer.indexStatus().embedding).toBeNull();
    expect(fixture.indexer.queries.keyword('alpha', {}, 5)).toHaveLength(1);
  });
});

describe('overlapping scans', () => {
  it('a rescan asked for while the initial scan runs is waited for by whenIdle', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`N${i}.md`] = `note ${i}`;
    fixture = await startIndexer({ files });
    // Written after the first walk has listed the folder: only the second scan can see it.
    await new Promise((resolve) => setImmediate(resolve));
    fixture.write('Late.md', 'arrived during the first scan: ocelots');
    const second = fixture.indexer.rescan();
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.queries.keyword('ocelots', {}, 5)).toHaveLength(1);
    await second;
    expect(fixture.indexer.indexStatus()).toMatchObject({ files: 31, pending: 0 });
  });
});
