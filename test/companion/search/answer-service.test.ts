import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import { authorized, buildTestApp, SAMPLE_VAULT } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * The README's first answer example, as `npm start` runs it: the sample vault, the built-in
 * model, POST /api/v1/answer. It must answer with a citation, not decline.
 */

let embedder: UseLiteEmbedder;
let index: IndexerFixture;
let app: TestApp;

beforeAll(async () => {
  embedder = await UseLiteEmbedder.load();
  index = await startIndexer({ source: SAMPLE_VAULT, embedder });
  await index.indexer.whenEmbedded();
  app = await buildTestApp({
    deps: { search: { index: () => index.indexer.queries, embedder: () => embedder } },
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await index?.close();
});

async function answer(question: string) {
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/v1/answer',
    headers: authorized,
    payload: { question },
  });
  expect(response.statusCode).toBe(200);
  return response.json<{
    answer: string;
    citations: Array<{ path: string }>;
    confidence: number;
  }>();
}

describe('answers over the sample vault with the built-in model', () => {
  it('answers the README question "how long can I stay in Portugal?" with a citation', async () => {
    const body = await answer('how long can I stay in Portugal?');
    expect(body.answer).toMatch(/Portugal is in Schengen.*90 days in any 180-day period/);
    expect(body.citations.map((citation) => citation.path)).toContain('Travel/Lisbon trip.md');
    expect(body.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('still answers how long the visa is valid from the visa note', async () => {
    const body = await answer('how long is the visa valid?');
    expect(body.answer).toMatch(/90 days in any 180-day period/);
    expect(body.citations[0]?.path).toBe('Travel/Visa rules.md');
  });
});
