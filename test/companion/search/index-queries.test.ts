import { afterEach, describe, expect, it } from 'vitest';
import { SqliteIndexQueries, toFtsQuery } from '../../../companion/search';
import { FIXTURE_VAULTS, HashingEmbedder, hashVector, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';
import { join } from 'node:path';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const FILES: Record<string, string> = {
  'Travel/Visa.md':
    '---\ntitle: Visa rules\ntags: [travel, travel/visa]\naliases: [Schengen]\ncreated: 2025-01-15T10:00:00Z\n---\n## Fees\nThe fee is 90 euros.\n\n## Documents\nA passport photo is required.\n',
  'Travel/Lisbon.md':
    '---\ntags: [travel]\ncreated: 2026-06-01T10:00:00Z\n---\n# Lisbon trip\nTrams, pastéis de nata and the passport office.\n',
  'Cooking/Café.md': '# Café\nCrème brûlée and espresso; the passport of desserts.\n',
  'Reminders/Call.md':
    '---\ntype: reminder\ntitle: Call the embassy\ncreated: 2026-11-01T09:00:00Z\n---\nAsk about the passport appointment.\n',
};

async function fixtureWithVectors(): Promise<IndexerFixture> {
  fixture = await startIndexer({ files: FILES, embedder: new HashingEmbedder() });
  await fixture.indexer.whenEmbedded();
  return fixture;
}

function pathsOf(f: IndexerFixture, hits: Array<{ chunkId: number }>): string[] {
  return [...new Set(f.indexer.queries.chunks(hits.map((hit) => hit.chunkId)).map((c) => c.path))];
}

describe('keyword', () => {
  it('ranks title and alias matches first and matches prefixes and words without accents', async () => {
    const f = await fixtureWithVectors();
    const q = f.indexer.queries;
    expect(pathsOf(f, q.keyword('schengen', {}, 5))).toEqual(['Travel/Visa.md']);
    expect(pathsOf(f, q.keyword('pass', {}, 10))).toHaveLength(4);
    expect(pathsOf(f, q.keyword('creme brulee', {}, 5))).toEqual(['Cooking/Café.md']);
    expect(pathsOf(f, q.keyword('PASTEIS', {}, 5))).toEqual(['Travel/Lisbon.md']);
    // Porter stemming: inflected forms meet.
    expect(pathsOf(f, q.keyword('fees required', {}, 5))[0]).toBe('Travel/Visa.md');
    expect(pathsOf(f, q.keyword('requiring', {}, 5))).toEqual(['Travel/Visa.md']);
    const scores = q.keyword('passport', {}, 10).map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores.every((score) => score > 0)).toBe(true);
  });

  it.each([
    '"',
    'passport"',
    'NEAR(passport fee)',
    'passport AND',
    'title:passport',
    '-passport',
    '* ^ ( ) { } : +',
    'passport OR NOT',
    "'; DROP TABLE index_files; --",
  ])('treats %j as words, never as FTS syntax', async (query) => {
    const f = await fixtureWithVectors();
    expect(() => f.indexer.queries.keyword(query, {}, 5)).not.toThrow();
    expect(f.indexer.indexStatus().files).toBe(4);
  });

  it('answers nothing for empty, punctuation-only, zero-limit and huge queries without failing', async () => {
    const f = await fixtureWithVectors();
    const q = f.indexer.queries;
    expect(q.keyword('', {}, 5)).toEqual([]);
    expect(q.keyword('  ?!  ', {}, 5)).toEqual([]);
    expect(q.keyword('passport', {}, 0)).toEqual([]);
    expect(q.keyword('passport', {}, Number.NaN)).toEqual([]);
    expect(q.keyword('passport '.repeat(10_000), {}, 5).length).toBeGreaterThan(0);
    expect(q.keyword('\u0000passport\u0007', {}, 5).length).toBeGreaterThan(0);
  });

  it('filters by folder, tag (nested too), type and date range', async () => {
    const f = await fixtureWithVectors();
    const q = f.indexer.queries;
    expect(pathsOf(f, q.keyword('passport', { folder: 'Travel' }, 10)).sort()).toEqual([
      'Travel/Lisbon.md',
      'Travel/Visa.md',
    ]);
    expect(pathsOf(f, q.keyword('passport', { folder: '/Travel/' }, 10))).toHaveLength(2);
    expect(q.keyword('passport', { folder: 'Trav' }, 10)).toEqual([]);
    expect(pathsOf(f, q.keyword('passport', { tag: '#Travel' }, 10))).toHaveLength(2);
    expect(pathsOf(f, q.keyword('passport', { tag: 'travel/visa' }, 10))).toEqual([
      'Travel/Visa.md',
    ]);
    expect(q.keyword('passport', { tag: 'trav' }, 10)).toEqual([]);
    expect(pathsOf(f, q.keyword('passport', { type: 'reminder' }, 10))).toEqual([
      'Reminders/Call.md',
    ]);
    expect(
      pathsOf(
        f,
        q.keyword(
          'passport',
          { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-07-01T00:00:00Z') },
          10,
        ),
      ),
    ).toEqual(['Travel/Lisbon.md']);
  });
});

describe('vector', () => {
  it('finds the nearest chunks by cosine similarity, with and without filters', async () => {
    const f = await fixtureWithVectors();
    const q = f.indexer.queries;
    const query = hashVector('Call the embassy Ask about the passport appointment.', 64);
    const [best] = q.vector(query, {}, 3);
    expect(q.chunks([best!.chunkId])[0]?.path).toBe('Reminders/Call.md');
    expect(best!.score).toBeGreaterThan(0.9);
    const filtered = q.vector(query, { folder: 'Travel' }, 10);
    expect(pathsOf(f, filtered).sort()).toEqual(['Travel/Lisbon.md', 'Travel/Visa.md']);
    const scores = filtered.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(q.vector(query, { type: 'pdf' }, 10)).toEqual([]);
  });

  it('refuses a query vector of another dimension, naming both', async () => {
    const f = await fixtureWithVectors();
    expect(() => f.indexer.queries.vector(new Float32Array(512), {}, 3)).toThrow(
      'vector query: 512 dimensions, but the index holds test-hashing@1 vectors of 64',
    );
  });

  it('a narrow filter whose chunks are not among the nearest still gets its best matches', async () => {
    const files: Record<string, string> = { 'Rare/Only.md': 'zebra quagga okapi' };
    for (let i = 0; i < 40; i++) files[`Bulk/N${i}.md`] = `common words here number ${i}`;
    fixture = await startIndexer({ files, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const query = hashVector('common words here', 64);
    const nearest = fixture.indexer.queries.vector(query, {}, 20);
    expect(pathsOf(fixture, nearest).every((path) => path.startsWith('Bulk/'))).toBe(true);
    const rare = fixture.indexer.queries.vector(query, { folder: 'Rare' }, 1);
    expect(pathsOf(fixture, rare)).toEqual(['Rare/Only.md']);
    expect(fixture.indexer.queries.vector(query, { folder: 'Bulk' }, 5)).toHaveLength(5);
  });

  it('a text shared by two notes comes back once per chunk', async () => {
    fixture = await startIndexer({
      files: { 'A/Same.md': 'identical words here', 'B/Same.md': 'identical words here' },
      embedder: new HashingEmbedder(),
    });
    await fixture.indexer.whenEmbedded();
    expect(fixture.indexer.store.distinctTextCount()).toBe(1);
    const hits = fixture.indexer.queries.vector(hashVector('Same identical words here', 64), {}, 5);
    expect(pathsOf(fixture, hits).sort()).toEqual(['A/Same.md', 'B/Same.md']);
  });
});

describe('chunks', () => {
  it('returns chunks in the order asked, skipping unknown ids, with locators', async () => {
    const f = await fixtureWithVectors();
    const q = f.indexer.queries;
    const ids = q.keyword('passport', {}, 10).map((hit) => hit.chunkId);
    const reversed = [...ids].reverse();
    expect(q.chunks([...reversed, 999_999]).map((c) => c.chunkId)).toEqual(reversed);
    expect(q.chunks([])).toEqual([]);
    const [documents] = q.chunks(q.keyword('photo', {}, 1).map((hit) => hit.chunkId));
    expect(documents).toMatchObject({
      path: 'Travel/Visa.md',
      title: 'Visa rules',
      headingPath: ['Documents'],
      heading: 'Documents',
      startLine: 10,
      endLine: 11,
      fileType: 'note',
      aliases: ['Schengen'],
      createdMs: Date.parse('2025-01-15T10:00:00Z'),
    });
  });
});

describe('embeddingModel', () => {
  it('is null until half the texts have vectors, then the stored model', async () => {
    fixture = await startIndexer({ source: join(FIXTURE_VAULTS, 'mixed') });
    await fixture.indexer.whenIdle();
    const q = new SqliteIndexQueries(fixture.db);
    expect(q.embeddingModel()).toBeNull();
    const store = fixture.indexer.store;
    const model = store.ensureModel({ id: 'partial', dims: 8 });
    const missing = store.missingVectors(model.id, 1000);
    const half = Math.ceil(missing.length / 2) - 1; // just under half
    store.storeVectors(
      model,
      missing
        .slice(0, half)
        .map((item) => ({ textHash: item.textHash, vector: new Float32Array(8).fill(1) })),
    );
    expect(q.embeddingModel()).toBeNull();
    store.storeVectors(
      model,
      missing
        .slice(half, missing.length)
        .map((item) => ({ textHash: item.textHash, vector: new Float32Array(8).fill(1) })),
    );
    expect(q.embeddingModel()).toEqual({ id: 'partial', dims: 8 });
  });

  it('refuses vectors of the wrong size or with NaN, storing nothing of the batch', async () => {
    fixture = await startIndexer({ files: { 'A.md': 'alpha', 'B.md': 'bravo' } });
    await fixture.indexer.whenIdle();
    const store = fixture.indexer.store;
    const model = store.ensureModel({ id: 'strict', dims: 4 });
    const [a, b] = store.missingVectors(model.id, 10);
    expect(() =>
      store.storeVectors(model, [
        { textHash: a!.textHash, vector: new Float32Array(4) },
        { textHash: b!.textHash, vector: new Float32Array(3) },
      ]),
    ).toThrow('embedding model strict: expected 4 dimensions, got 3');
    expect(() =>
      store.storeVectors(model, [
        { textHash: a!.textHash, vector: new Float32Array([0, Number.NaN, 0, 0]) },
      ]),
    ).toThrow('non-finite');
    expect(store.vectorCount(model.id)).toBe(0);
  });
});

describe('toFtsQuery', () => {
  it('quotes every term, adds prefix matching, ORs terms and drops duplicates', () => {
    expect(toFtsQuery('Visa fee, visa!')).toBe('"visa"* OR "fee"*');
    expect(toFtsQuery('a "quoted" NEAR(x)')).toBe('"a" OR "quoted"* OR "near"* OR "x"');
    expect(toFtsQuery('   ')).toBeNull();
    expect(toFtsQuery('café 東京 ab 12')).toBe('"cafe"* OR "東京"* OR "ab" OR "12"');
    expect(
      toFtsQuery(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' '))?.split(' OR '),
    ).toHaveLength(32);
  });
});
