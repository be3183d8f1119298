import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../shared/ports';
import { USE_LITE_MODEL } from '../../../shared/embeddings/use-lite-model';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { MemoryIndex, noteChunk } from './memory-index';

/*
 * Search that does not change under you (issue #26 item 8): hits that match nothing of the query
 * (relevance 0) are not results, and a query's hits are the same whether the embedding model's
 * workers are up or parked (a parked model is waited for, within a bound).
 */

const MODEL = { id: USE_LITE_MODEL.id, dims: USE_LITE_MODEL.dims };

function vaultIndex() {
  const visa = noteChunk({ path: 'Travel/Visa rules.md', text: 'The visa fee is €90.' });
  const passport = noteChunk({ path: 'Travel/Passport.md', text: 'Renew the passport early.' });
  const garden = noteChunk({ path: 'Garden.md', text: 'Water the basil every other day.' });
  const reading = noteChunk({ path: 'Projects/Reading list.md', text: 'A Pattern Language.' });
  const index = new MemoryIndex([visa, passport, garden, reading]);
  index.model = MODEL;
  // By meaning: the passport note is close to "visa"; the garden and the reading list are far.
  index.vectorHits = [
    { chunkId: passport.chunkId, score: 0.62 },
    { chunkId: garden.chunkId, score: 0.12 },
    { chunkId: reading.chunkId, score: 0.05 },
  ];
  return index;
}

/** The model as the worker embedder presents it: `ready` false while its workers are parked. */
function workers(state: { ready: boolean; loadMs: number; loads: number }): Embedder {
  return {
    model: MODEL,
    get ready() {
      return state.ready;
    },
    embed: async (texts) => {
      if (!state.ready) {
        state.loads++;
        await new Promise((resolve) => setTimeout(resolve, state.loadMs));
        state.ready = true;
      }
      return texts.map(() => new Float32Array(MODEL.dims));
    },
  } as Embedder;
}

const paths = (outcome: { hits: Array<{ chunk: { path: string } }> }) =>
  outcome.hits.map((hit) => hit.chunk.path);

describe('search hits', () => {
  it('leaves out hits that match nothing of the query (relevance 0)', async () => {
    const state = { ready: true, loadMs: 0, loads: 0 };
    const search = new HybridSearch({ index: vaultIndex(), embedder: () => workers(state) });
    const outcome = await search.search({ query: 'visa', limit: 20 });
    expect(outcome.mode).toBe('hybrid');
    expect(paths(outcome)).toEqual(['Travel/Visa rules.md', 'Travel/Passport.md']);
    for (const hit of outcome.hits) expect(hit.relevance).toBeGreaterThan(0);
    expect(outcome.hasMore).toBe(false);
  });

  it('are the same whether the workers are up or parked: a parked model is waited for', async () => {
    const up = { ready: true, loadMs: 0, loads: 0 };
    const parked = { ready: false, loadMs: 30, loads: 0 };
    const warm = await new HybridSearch({
      index: vaultIndex(),
      embedder: () => workers(up),
    }).search({ query: 'visa', limit: 20 });
    const cold = await new HybridSearch({
      index: vaultIndex(),
      embedder: () => workers(parked),
    }).search({ query: 'visa', limit: 20 });
    expect(parked.loads).toBe(1);
    expect(cold.mode).toBe('hybrid');
    expect(cold.keywordOnlyReason).toBeUndefined();
    expect(paths(cold)).toEqual(paths(warm));
    expect(cold.hits.map((hit) => hit.relevance)).toEqual(warm.hits.map((hit) => hit.relevance));
  });

  it('answers with keywords, saying why, when the model does not load within the bound', async () => {
    const stuck = { ready: false, loadMs: 5_000, loads: 0 };
    const outcome = await new HybridSearch({
      index: vaultIndex(),
      embedder: () => workers(stuck),
      modelWaitMs: 20,
    }).search({ query: 'visa', limit: 20 });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.keywordOnlyReason).toMatch(/loading/);
    expect(paths(outcome)).toEqual(['Travel/Visa rules.md']);
  });
});
