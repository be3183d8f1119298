import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkNote } from '../../../shared/search/chunk';
import type { NoteChunk } from '../../../shared/search/chunk';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import type { SearchEngine } from '../../../plugin/search/search-engine';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';
import { optionalCorpus, repoRoot } from '../../helpers/corpora';
import { FakeEmbedder } from './fake-embedder';

function chunksOf(path: string, markdown: string): NoteChunk[] {
  const result = noteInputFromMarkdown(path, markdown);
  if (!result.ok) throw new Error(result.problem.message);
  return chunkNote(result.input);
}

function add(engine: SearchEngine, path: string, markdown: string, embedder?: FakeEmbedder): void {
  const chunks = chunksOf(path, markdown);
  engine.upsertNote(
    path,
    chunks,
    embedder
      ? (hash) => embedder.vectorOf(chunks.find((c) => c.textHash === hash)!.text)
      : undefined,
  );
}

const VAULT: Record<string, string> = {
  'Travel/Visa rules.md':
    '---\ntags: [travel, admin/visa]\naliases: [Visa summary]\n---\n# Visa rules\n\n## Fees\n\nThe fee is $50 for standard processing of the tourist visa.\n\n## Documents\n\nBring the passport and two photos.\n',
  'Travel/Packing.md': '# Packing list\n\nSocks, chargers, the passport, a rain jacket.\n',
  'Work/Meeting notes.md':
    '---\ntype: note\ntags: [work]\n---\n# Weekly meeting\n\nWe discussed the budget and hiring plans for the quarter.\n',
  'Reminders/call-the-bank.md':
    '---\ntype: reminder\ndue: 2026-11-24 09:00\n---\n# Call the bank\n\nAsk about the card fee.\n',
};

function vaultEngine(embedder?: FakeEmbedder): SearchEngine {
  const engine = createSearchEngine({ embedder: embedder ?? null });
  for (const [path, markdown] of Object.entries(VAULT)) add(engine, path, markdown, embedder);
  return engine;
}

describe('createSearchEngine: keyword', () => {
  it('answers a natural-language question without requiring every word to match', async () => {
    const hits = await vaultEngine().search('how much is the fee for a tourist visa?');
    expect(hits[0]?.citation.path).toBe('Travel/Visa rules.md');
    expect(hits[0]?.citation).toMatchObject({ type: 'note', title: 'Visa rules' });
    expect(hits[0]?.citation.excerpt).toContain('$50');
    expect(hits[0]?.mode).toBe('keyword');
    expect(hits[0]?.citation.score).toBe(1);
  });

  it('tolerates a typo in a long word and matches prefixes; stems unless told not to', async () => {
    const engine = vaultEngine();
    expect((await engine.search('planning'))[0]?.citation.path).toBe('Work/Meeting notes.md');
    const exact = createSearchEngine({ stemming: false });
    for (const [path, markdown] of Object.entries(VAULT)) add(exact, path, markdown);
    expect(await exact.search('planning')).toEqual([]);
    expect((await engine.search('pasport'))[0]?.citation.path).toMatch(/^Travel\//);
    expect((await engine.search('charg'))[0]?.citation.path).toBe('Travel/Packing.md');
  });

  it('finds a note by alias and by file name', async () => {
    const engine = vaultEngine();
    expect((await engine.search('visa summary'))[0]?.citation.path).toBe('Travel/Visa rules.md');
    expect((await engine.search('call bank'))[0]?.citation.path).toBe('Reminders/call-the-bank.md');
  });

  it('returns one hit per note, at most `limit`', async () => {
    const hits = await vaultEngine().search('passport photos visa', { limit: 10 });
    const paths = hits.map((hit) => hit.citation.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect((await vaultEngine().search('passport', { limit: 1 })).length).toBe(1);
  });

  it('filters by folder (and below), tag (nested tags match their parent) and type', async () => {
    const engine = vaultEngine();
    const fee = 'fee';
    expect((await engine.search(fee, { folder: 'Travel' })).map((h) => h.citation.path)).toEqual([
      'Travel/Visa rules.md',
    ]);
    expect(
      (await engine.search(fee, { folder: '/Reminders/' })).map((h) => h.citation.path),
    ).toEqual(['Reminders/call-the-bank.md']);
    expect((await engine.search(fee, { type: 'reminder' })).map((h) => h.citation.path)).toEqual([
      'Reminders/call-the-bank.md',
    ]);
    expect((await engine.search(fee, { tag: '#Admin' })).map((h) => h.citation.path)).toEqual([
      'Travel/Visa rules.md',
    ]);
    expect(await engine.search(fee, { tag: 'work' })).toEqual([]);
    expect(await engine.search(fee, { folder: 'Trav' })).toEqual([]);
  });

  it('reflects updates and removals', async () => {
    const engine = vaultEngine();
    add(engine, 'Travel/Packing.md', '# Packing list\n\nSunscreen and a hat.\n');
    expect((await engine.search('chargers')).map((h) => h.citation.path)).not.toContain(
      'Travel/Packing.md',
    );
    expect((await engine.search('sunscreen'))[0]?.citation.path).toBe('Travel/Packing.md');
    engine.removeNote('Travel/Packing.md');
    expect(await engine.search('sunscreen')).toEqual([]);
    expect(engine.noteCount).toBe(3);
    engine.removeNote('does/not/exist.md');
    expect(engine.noteCount).toBe(3);
  });

  it('handles empty, stop-word-only, control-character and huge queries', async () => {
    const engine = vaultEngine();
    expect(await engine.search('')).toEqual([]);
    expect(await engine.search('   \t\n')).toEqual([]);
    expect(await engine.search('\u0000\u0007\u001b[31m')).toEqual([]);
    // Only stop words: normaliseQuery falls back to the words themselves rather than nothing.
    await expect(engine.search('the of and')).resolves.toBeInstanceOf(Array);
    const huge = 'visa '.repeat(20_000);
    expect((await engine.search(huge))[0]?.citation.path).toBe('Travel/Visa rules.md');
    await expect(engine.search('visa', { limit: 0 })).rejects.toThrow(/limit/);
    expect(await createSearchEngine().search('visa')).toEqual([]);
  });

  it('rejects a chunk filed under another path', () => {
    const engine = createSearchEngine();
    const chunks = chunksOf('a.md', 'text');
    expect(() => engine.upsertNote('b.md', chunks)).toThrow(/belongs to a\.md, not b\.md/);
  });
});

describe('createSearchEngine: hybrid', () => {
  it('fuses vector hits with keyword hits and says so', async () => {
    const embedder = new FakeEmbedder();
    const engine = vaultEngine(embedder);
    expect(engine.mode).toBe('hybrid');
    const hits = await engine.search('budget hiring quarter');
    expect(hits[0]?.citation.path).toBe('Work/Meeting notes.md');
    expect(hits[0]?.mode).toBe('hybrid');
  });

  it('answers by keyword, without asking for a query vector, while the model is still loading', async () => {
    const embedder = new FakeEmbedder();
    const engine = vaultEngine(embedder);
    const loading = Object.assign(Object.create(embedder) as FakeEmbedder, { ready: false });
    const whileLoading = vaultEngine(loading);
    // The two share one `embedded` list (a query embedded through either would land in it).
    const embeddedBefore = embedder.embedded.length;
    const hits = await whileLoading.search('budget hiring quarter');
    expect(embedder.embedded).toHaveLength(embeddedBefore);
    expect(hits[0]?.citation.path).toBe('Work/Meeting notes.md');
    expect(hits.every((hit) => hit.mode === 'keyword')).toBe(true);
    expect((await engine.search('budget hiring quarter'))[0]?.mode).toBe('hybrid');
  });

  it('a chunk without a vector is still found by keyword; setVectors adds it to the vector side', async () => {
    const embedder = new FakeEmbedder();
    const engine = createSearchEngine({ embedder });
    add(engine, 'a.md', '# Alpha\n\nzebra crossing rules');
    expect(engine.chunksWithoutVectors('a.md').length).toBe(1);
    expect((await engine.search('zebra'))[0]?.citation.path).toBe('a.md');
    const [chunk] = engine.chunksWithoutVectors('a.md');
    engine.setVectors('a.md', () => embedder.vectorOf(chunk!.text));
    expect(engine.chunksWithoutVectors('a.md')).toEqual([]);
  });

  it('ignores vectors of the wrong size rather than mixing them in', () => {
    const engine = createSearchEngine({ embedder: new FakeEmbedder('m', 64) });
    const chunks = chunksOf('a.md', 'hello world');
    engine.upsertNote('a.md', chunks, () => new Float32Array(32));
    expect(engine.chunksWithoutVectors('a.md').length).toBe(1);
  });

  it('answers by keyword, marked so, when the query cannot be embedded', async () => {
    const embedder = new FakeEmbedder('m', 8);
    const errors: string[] = [];
    const engine = createSearchEngine({
      embedder,
      onVectorError: (error) => errors.push(error.message),
    });
    add(engine, 'a.md', 'hello world', embedder);
    embedder.vectorOf = () => new Float32Array(3);
    const [wrongSize] = await engine.search('hello');
    expect(wrongSize).toMatchObject({ mode: 'keyword', citation: { path: 'a.md' } });
    embedder.failNext = new Error('connect ECONNREFUSED');
    expect((await engine.search('hello'))[0]?.mode).toBe('keyword');
    expect(errors).toEqual([
      'embedding: m returned 3 dims for the query, expected 8',
      'connect ECONNREFUSED',
    ]);
  });
});

function indexVault(root: string) {
  const engine = createSearchEngine();
  for (const file of walk(root).filter((name) => name.endsWith('.md'))) {
    const path = relative(root, file).split('\\').join('/');
    const result = noteInputFromMarkdown(path, readFileSync(file, 'utf8'));
    if (result.ok) engine.upsertNote(path, chunkNote(result.input));
  }
  return engine;
}

describe('createSearchEngine on the handbook fixture vault', () => {
  const engine = indexVault(join(repoRoot, 'test/fixtures/vaults/handbook'));

  it.each([
    ['keyboard shortcut to open the command palette', 'Reference/Keyboard shortcuts.md'],
    ['what happens when syncthing finds a conflict', 'Guides/Syncing your vault.md'],
    ['which folder keeps the hotkeys json', 'Reference/Configuration folder.md'],
    ['how much did the carpenter quote for cabinets', 'Projects/Kitchen renovation.md'],
  ])('%s → %s', async (question, expected) => {
    const hits = await engine.search(question, { limit: 3 });
    expect(hits[0]?.citation.path).toBe(expected);
  });
});

const helpVault = optionalCorpus('obsidian-help-en');

describe.skipIf(!helpVault)('createSearchEngine on obsidian-help-en', () => {
  let engine: ReturnType<typeof createSearchEngine>;
  beforeAll(() => {
    engine = indexVault(helpVault!);
  });

  it.each([
    ['how do I embed a note', 'Linking notes and files/Embed files.md'],
    ['how can I sync my vault between devices', 'Obsidian Sync'],
    ['keyboard shortcut to open the command palette', 'ommand palette'],
  ])('%s → %s', async (question, expected) => {
    const hits = await engine.search(question, { limit: 5 });
    expect(hits.map((hit) => hit.citation.path).join('\n')).toContain(expected);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('createSearchEngine: vector prefilter', () => {
  it('ranks hybrid hits as the exact scan does, with and without a narrow filter', async () => {
    const embedder = new FakeEmbedder('m', 64);
    const words = VAULT_WORDS.split(' ');
    let state = 5;
    const pick = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return words[state % words.length]!;
    };
    const notes: Array<[string, string]> = [];
    for (let i = 0; i < 1600; i++) {
      const body = Array.from({ length: 12 }, pick).join(' ');
      notes.push([`F${i % 40}/note ${i}.md`, `# ${pick()} ${pick()}\n\n${body}.\n`]);
    }
    // 1,600 chunks: more than the default re-rank budget (1,200 for a pool of 60).
    const prefiltered = createSearchEngine({ embedder });
    const exact = createSearchEngine({ embedder, vectorRerank: Infinity });
    for (const [path, markdown] of notes) {
      add(prefiltered, path, markdown, embedder);
      add(exact, path, markdown, embedder);
    }
    for (let q = 0; q < 8; q++) {
      const query = `${pick()} ${pick()} ${pick()}`;
      for (const options of [{}, { folder: 'F7' }, { limit: 20 }]) {
        const got = await prefiltered.search(query, options);
        expect(got.length).toBeGreaterThan(0);
        expect(got).toEqual(await exact.search(query, options));
      }
    }
  });
});

const VAULT_WORDS =
  'river mountain budget passport visa kettle garden orbit violin harbour ledger copper ' +
  'lantern meadow falcon quartz summit canyon velvet pepper saddle timber glacier harvest ' +
  'comet anchor marble compass beacon thistle walnut cobalt ember prairie lagoon tundra';
