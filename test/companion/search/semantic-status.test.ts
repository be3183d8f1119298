import { afterEach, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { StatusResponse } from '../../../shared/protocol/status';
import type { Embedder } from '../../../shared/ports';
import { createEmbedder, embeddingsConfigFromEnv } from '../../../companion/embeddings/provider';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import {
  searchExclusionRules,
  searchExclusionSettingsFromEnv,
} from '../../../companion/search/search-exclusions';
import { SAMPLE_VAULT } from '../helpers/app';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * `index.semantic` in GET /api/v1/status: progress while vectors are computed, `ready` only
 * when every text has one (and only then `index.embedding`), `off` with the reason when no
 * model runs, on purpose (CAIRN_EMBEDDINGS=none) or not.
 */

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A hashing embedder whose first batch waits until `release()`. */
class HeldEmbedder implements Embedder {
  readonly inner = new HashingEmbedder();
  readonly model = this.inner.model;
  private gate: Promise<void>;
  release!: () => void;

  constructor() {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    await this.gate;
    return this.inner.embed(texts);
  }
}

function check(status: StatusResponse['index']): void {
  const full: StatusResponse = {
    version: 't',
    index: status,
    scheduler: { reminders: 0, next_fire: null },
    push: { subscriptions: 0 },
  };
  expect(Value.Check(StatusResponse, full)).toBe(true);
}

describe('index.semantic', () => {
  it('counts texts while vectors are computed; embedding stays null until complete', async () => {
    const embedder = new HeldEmbedder();
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      embedder,
      semantic: { provider: 'builtin' },
      embeddings: { batchSize: 4 },
    });
    await fixture.indexer.whenIdle();
    const during = fixture.indexer.indexStatus();
    check(during);
    const total = fixture.indexer.store.distinctTextCount();
    expect(total).toBeGreaterThan(4);
    expect(during.semantic).toEqual({
      state: 'embedding',
      provider: 'builtin',
      model: 'test-hashing@1',
      dims: 64,
      embedded: 0,
      total,
      reason: null,
    });
    expect(during.embedding).toBeNull();

    embedder.release();
    await fixture.indexer.whenEmbedded();
    const after = fixture.indexer.indexStatus();
    check(after);
    expect(after.semantic).toMatchObject({ state: 'ready', embedded: total, total });
    expect(after.embedding).toEqual({ model: 'test-hashing@1', dims: 64 });
  });

  it('says which runtime runs the built-in model, as the embedder reports it now', async () => {
    // Workers load on demand, so status reads the runtime each time it is asked.
    const pool: { runtime?: 'native' | 'wasm' } = {};
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      embedder: new HashingEmbedder(),
      semantic: { provider: 'builtin', runtime: () => pool.runtime },
    });
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.indexStatus().semantic).not.toHaveProperty('runtime');
    pool.runtime = 'native';
    const status = fixture.indexer.indexStatus();
    check(status);
    expect(status.semantic.runtime).toBe('native');
  });

  it('is off, with the reason, in keyword-only mode by choice', async () => {
    const config = embeddingsConfigFromEnv({ CAIRN_EMBEDDINGS: 'none' });
    expect(config.provider).toBe('none');
    await expect(createEmbedder(config)).rejects.toThrow(/none/);
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      semantic: { provider: 'none', reason: 'keyword-only by choice (CAIRN_EMBEDDINGS=none)' },
    });
    await fixture.indexer.whenIdle();
    const status = fixture.indexer.indexStatus();
    check(status);
    expect(status.semantic).toEqual({
      state: 'off',
      provider: 'none',
      model: null,
      dims: null,
      embedded: 0,
      total: fixture.indexer.store.distinctTextCount(),
      reason: 'keyword-only by choice (CAIRN_EMBEDDINGS=none)',
    });
    expect(status.embedding).toBeNull();
    const outcome = await new HybridSearch({ index: fixture.indexer.queries }).search({
      query: 'visa fee',
      limit: 3,
    });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.hits[0]?.chunk.path).toBe('Travel/Visa rules.md');
  });

  it('rejects an unknown provider naming the variable', () => {
    expect(() => embeddingsConfigFromEnv({ CAIRN_EMBEDDINGS: 'off' })).toThrow(
      /CAIRN_EMBEDDINGS must be "builtin", "ollama" or "none", got "off"/,
    );
  });
});

describe('index.excluded', () => {
  it('lists the folders search leaves out, with their files and the setting', async () => {
    const rules = searchExclusionRules(searchExclusionSettingsFromEnv({}), {
      chats: 'Cairn/Chats',
    });
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      files: { 'Cairn/Chats/a.md': 'chat a', 'Cairn/Chats/b.md': 'chat b' },
      searchExclusions: rules,
    });
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.indexStatus().excluded).toEqual([
      { kind: 'chats', folder: 'Cairn/Chats', files: 2, setting: 'CAIRN_SEARCH_CHATS=1' },
      { kind: 'digests', folder: 'Cairn/Digests', files: 0, setting: 'CAIRN_SEARCH_DIGESTS=1' },
    ]);
  });

  it('reads the settings that include chats and digests, refusing other values', () => {
    expect(
      searchExclusionRules(
        searchExclusionSettingsFromEnv({ CAIRN_SEARCH_CHATS: '1', CAIRN_SEARCH_DIGESTS: 'yes' }),
        { chats: 'Cairn/Chats' },
      ),
    ).toEqual([]);
    expect(() => searchExclusionSettingsFromEnv({ CAIRN_SEARCH_CHATS: 'maybe' })).toThrow(
      /CAIRN_SEARCH_CHATS must be 1 or 0/,
    );
  });
});
