import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerEmbedder } from '../../../companion/embeddings';
import type { Embedder } from '../../../shared/ports';
import { SAMPLE_VAULT } from '../helpers/app';
import { buildWorkerForTest } from '../embeddings/worker-build';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let worker: WorkerEmbedder;
let fixture: IndexerFixture;
let embedded = 0;
/** The real worker, counting the texts it is asked to embed. */
let counting: Embedder;

beforeAll(async () => {
  const workerFile = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
  worker = await WorkerEmbedder.start({ workerFile });
  counting = {
    model: worker.model,
    embed: (texts) => {
      embedded += texts.length;
      return worker.embed(texts);
    },
  };
  fixture = await startIndexer({ source: SAMPLE_VAULT, embedder: counting });
  await fixture.indexer.whenEmbedded();
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await worker?.close();
});

describe('indexing the sample vault with the real USE-lite worker', () => {
  it('stores 512-dimension vectors for every text and reports the model', () => {
    expect(embedded).toBe(fixture.indexer.store.distinctTextCount());
    expect(fixture.indexer.indexStatus().embedding).toEqual({
      model: 'use-lite-512@energetic-ai-0.2.0',
      dims: 512,
    });
  });

  it('finds the visa note for a question that shares few of its words', async () => {
    const [query] = await worker.embed(['what do I need to apply for a visa']);
    const hits = fixture.indexer.queries.vector(query!, {}, 3);
    const paths = fixture.indexer.queries.chunks(hits.map((hit) => hit.chunkId)).map((c) => c.path);
    expect(paths).toContain('Travel/Visa rules.md');
  });

  it('a restart embeds nothing', async () => {
    const before = embedded;
    const indexer = await fixture.restart({ embedder: counting });
    await indexer.whenEmbedded();
    expect(embedded).toBe(before);
    expect(indexer.indexStatus().embedding?.dims).toBe(512);
  });
});
