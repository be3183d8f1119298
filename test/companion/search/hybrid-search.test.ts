import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../shared/ports';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { MemoryIndex, noteChunk } from './memory-index';

const MODEL = { id: 'test-model', dims: 3 };

function embedder(model = MODEL, fail = false): Embedder {
  return {
    model,
    embed: async (texts) => {
      if (fail) throw new Error('model crashed');
      return texts.map(() => new Float32Array([1, 0, 0]));
    },
  };
}

function vaultIndex() {
  const visa = noteChunk({
    path: 'Travel/Visa rules.md',
    text: '## Key points\n- the visa fee is €90\n- valid 90 days',
    heading: 'Key points',
    headingPath: ['Key points'],
    startLine: 10,
    endLine: 12,
    noteId: 'visa-id',
    tags: ['travel'],
  });
  const visa2 = noteChunk({
    path: 'Travel/Visa rules.md',
    text: '## Documents\nPassport and visa photo',
    startLine: 14,
    endLine: 15,
  });
  const garden = noteChunk({ path: 'Garden.md', text: 'Water the basil every other day.' });
  const lisbon = noteChunk({ path: 'Travel/Lisbon trip.md', text: 'Flights to Lisbon in May.' });
  return { index: new MemoryIndex([visa, visa2, garden, lisbon]), visa, visa2, garden, lisbon };
}

describe('HybridSearch', () => {
  it('runs keyword-only without an embedder, and says why', async () => {
    const { index, visa } = vaultIndex();
    const outcome = await new HybridSearch({ index }).search({ query: 'visa fee', limit: 10 });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.keywordOnlyReason).toMatch(/no embedding model/);
    expect(outcome.hits[0]?.chunk.chunkId).toBe(visa.chunkId);
    expect(outcome.hits[0]?.citation).toMatchObject({
      type: 'note',
      path: 'Travel/Visa rules.md',
      id: 'visa-id',
      heading: 'Key points',
    });
  });

  it('gives the keyword engine the normalised query (question words and stop words removed)', async () => {
    const { index } = vaultIndex();
    const outcome = await new HybridSearch({ index }).search({
      query: 'How much is the visa fee?',
      limit: 10,
    });
    expect(index.keywordCalls).toEqual(['visa fee']);
    expect(outcome.terms).toEqual(['visa', 'fee']);
  });

  it('fuses vector candidates when the index holds the running model', async () => {
    const { index, garden, visa } = vaultIndex();
    index.model = MODEL;
    index.vectorHits = [
      { chunkId: garden.chunkId, score: 0.9 },
      { chunkId: visa.chunkId, score: 0.5 },
    ];
    const outcome = await new HybridSearch({ index, embedder: () => embedder() }).search({
      query: 'visa',
      limit: 10,
    });
    expect(outcome.mode).toBe('hybrid');
    // Found by meaning only, the garden note still appears; the visa note, found by both, leads.
    const paths = outcome.hits.map((hit) => hit.chunk.path);
    expect(paths[0]).toBe('Travel/Visa rules.md');
    expect(paths).toContain('Garden.md');
    const gardenHit = outcome.hits.find((hit) => hit.chunk.path === 'Garden.md');
    expect(gardenHit?.vectorScore).toBe(0.9);
    expect(gardenHit?.keywordScore).toBeUndefined();
  });

  it('stays keyword-only when the index holds another model’s vectors', async () => {
    const { index } = vaultIndex();
    index.model = { id: 'other', dims: 3 };
    const outcome = await new HybridSearch({ index, embedder: () => embedder() }).search({
      query: 'visa',
      limit: 10,
    });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.keywordOnlyReason).toMatch(/other vectors/);
  });

  it('answers by keyword while the model loads, and asks it to load', async () => {
    const { index, visa } = vaultIndex();
    index.model = MODEL;
    const asked: string[][] = [];
    const loading: Embedder = {
      model: MODEL,
      ready: false,
      embed: (texts) => {
        asked.push([...texts]);
        return new Promise(() => {}); // still loading: a search must not wait for this
      },
    };
    const outcome = await new HybridSearch({ index, embedder: () => loading }).search({
      query: 'visa fee',
      limit: 10,
    });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.keywordOnlyReason).toBe('the embedding model is loading');
    expect(outcome.hits[0]?.chunk.chunkId).toBe(visa.chunkId);
    expect(asked).toEqual([['visa fee']]);
  });

  it('falls back to keywords when the embedder fails', async () => {
    const { index } = vaultIndex();
    index.model = MODEL;
    const outcome = await new HybridSearch({
      index,
      embedder: () => embedder(MODEL, true),
    }).search({ query: 'visa', limit: 10 });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.keywordOnlyReason).toMatch(/model crashed/);
    expect(outcome.hits.length).toBeGreaterThan(0);
  });

  it('applies filters, limits and offsets', async () => {
    const { index } = vaultIndex();
    const search = new HybridSearch({ index });
    const garden = await search.search({
      query: 'water basil visa',
      limit: 10,
      filters: { folder: 'Travel' },
    });
    expect(garden.hits.every((hit) => hit.chunk.path.startsWith('Travel/'))).toBe(true);
    const first = await search.search({ query: 'visa basil lisbon', limit: 1 });
    expect(first.hits).toHaveLength(1);
    expect(first.hasMore).toBe(true);
    const second = await search.search({ query: 'visa basil lisbon', limit: 1, offset: 1 });
    expect(second.hits[0]?.chunk.chunkId).not.toBe(first.hits[0]?.chunk.chunkId);
  });

  it('keeps at most two close chunks of one note', async () => {
    const rows = Array.from({ length: 5 }, (_, i) =>
      noteChunk({ path: 'Long.md', text: `visa part ${i}`, startLine: i + 1, endLine: i + 1 }),
    );
    const other = noteChunk({ path: 'Other.md', text: 'visa' });
    const outcome = await new HybridSearch({ index: new MemoryIndex([...rows, other]) }).search({
      query: 'visa',
      limit: 10,
    });
    expect(outcome.hits.filter((hit) => hit.chunk.path === 'Long.md').length).toBeLessThanOrEqual(
      2,
    );
    expect(outcome.hits.map((hit) => hit.chunk.path)).toContain('Other.md');
  });

  it('returns nothing for a query with no searchable word', async () => {
    const { index } = vaultIndex();
    const outcome = await new HybridSearch({ index }).search({ query: '?!…', limit: 10 });
    expect(outcome.hits).toEqual([]);
  });

  it('reports each search’s duration and mode', async () => {
    const { index } = vaultIndex();
    const timings: Array<[number, string]> = [];
    let t = 0;
    const search = new HybridSearch({
      index,
      now: () => (t += 5),
      onTiming: (seconds, mode) => timings.push([seconds, mode]),
    });
    await search.search({ query: 'visa', limit: 3 });
    expect(timings).toEqual([[0.005, 'keyword']]);
  });

  it('scores every hit in [0, 1], best first', async () => {
    const { index } = vaultIndex();
    const { hits } = await new HybridSearch({ index }).search({ query: 'visa', limit: 10 });
    for (const hit of hits) {
      expect(hit.score).toBeGreaterThanOrEqual(0);
      expect(hit.score).toBeLessThanOrEqual(1);
    }
    expect(hits.map((hit) => hit.score)).toEqual(
      [...hits.map((hit) => hit.score)].sort((a, b) => b - a),
    );
  });
});
