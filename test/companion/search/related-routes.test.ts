import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { RelatedResponse } from '../../../shared/protocol/search';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';
import { SAMPLE_VAULT, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * `GET /api/v1/related` over the real indexer and SQLite index of a copy of the sample vault,
 * with a saved chat that repeats the trip note's words: chats are never related. The embedder
 * is the indexer tests' deterministic hashing model.
 */

const CHAT = 'Cairn/Chats/2026-11-22 1030 Chat.md';

let index: IndexerFixture;
let hybrid: TestApp;
let keywordOnly: TestApp;

beforeAll(async () => {
  const embedder = new HashingEmbedder();
  index = await startIndexer({
    source: SAMPLE_VAULT,
    embedder,
    files: {
      [CHAT]:
        '# Lisbon trip\n\nFlights booked for 2027-04-12. Stay near Alfama; the 28 tram is crowded. Sintra day trip, Schengen, 90 days.\n',
    },
  });
  await index.indexer.whenEmbedded();
  hybrid = await buildTestApp({
    deps: { search: { index: () => index.indexer.queries, embedder: () => embedder } },
  });
  keywordOnly = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await hybrid?.close();
  await keywordOnly?.close();
  await index?.close();
});

async function related(app: TestApp, query: string) {
  return app.app.inject({ url: `/api/v1/related?${query}`, headers: authorized });
}

describe('GET /api/v1/related', () => {
  it('ranks other notes by the note’s stored vectors, never the note itself nor a chat', async () => {
    const response = await related(hybrid, `path=${encodeURIComponent('Travel/Lisbon trip.md')}`);
    expect(response.statusCode).toBe(200);
    const body = response.json() as RelatedResponse;
    expect(Value.Check(RelatedResponse, body)).toBe(true);
    expect(body.mode).toBe('hybrid');
    expect(body.vector.length).toBeGreaterThan(0);
    const paths = [...body.vector, ...body.keyword].map((hit) => hit.citation.path);
    expect(paths).not.toContain('Travel/Lisbon trip.md');
    expect(paths).not.toContain(CHAT);
    // The visa note shares the trip's Schengen words; the hashing model puts it first.
    expect(body.vector[0]?.citation.path).toBe('Travel/Visa rules.md');
    for (const list of [body.vector, body.keyword]) {
      const scores = list.map((hit) => hit.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it('needs no running model: the stored vectors and the title’s words serve', async () => {
    const body = (
      await related(keywordOnly, `path=${encodeURIComponent('Travel/Lisbon trip.md')}`)
    ).json() as RelatedResponse;
    expect(Value.Check(RelatedResponse, body)).toBe(true);
    expect(body.mode).toBe('hybrid');
    expect(body.keyword.length).toBeGreaterThan(0);
    expect(body.keyword.map((hit) => hit.citation.path)).not.toContain(CHAT);
  });

  it('keeps to the limit', async () => {
    const body = (
      await related(hybrid, `path=${encodeURIComponent('Travel/Lisbon trip.md')}&limit=1`)
    ).json() as RelatedResponse;
    expect(body.vector).toHaveLength(1);
    expect(body.keyword.length).toBeLessThanOrEqual(1);
  });

  it('says 404 naming the path for a note not in the index, 400 for a bad path', async () => {
    const missing = await related(hybrid, 'path=Nowhere.md');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'path' } });
    expect((missing.json() as { error: { message: string } }).error.message).toContain(
      'Nowhere.md',
    );
    const bad = await related(hybrid, 'path=..%2Fetc%2Fpasswd');
    expect(bad.statusCode).toBe(400);
    const none = await related(hybrid, '');
    expect(none.statusCode).toBe(400);
  });

  it('says 503 while there is no index', async () => {
    const app = await buildTestApp();
    try {
      const response = await related(app, 'path=Welcome.md');
      expect(response.statusCode).toBe(503);
    } finally {
      await app.close();
    }
  });
});
