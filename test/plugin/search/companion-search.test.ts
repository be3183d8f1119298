import { describe, expect, it } from 'vitest';
import { CompanionClient } from '../../../plugin/connection/client';
import type { HttpRequest } from '../../../plugin/connection/http-transport';
import { CompanionVaultSearch } from '../../../plugin/search/companion-search';
import type { SearchResponse } from '../../../shared/protocol/search';

const visa = {
  citation: {
    type: 'note' as const,
    path: 'Travel/Visa.md',
    title: 'Visa',
    heading: 'Fees',
    lines: [3, 5] as [number, number],
    excerpt: 'The visa fee is 80 euros.',
    score: 0.9,
  },
  score: 1,
};

function searchOver(answer: { status: number; body: unknown }) {
  const seen: HttpRequest[] = [];
  const client = new CompanionClient(
    {
      request: async (request) => {
        seen.push(request);
        return { status: answer.status, text: JSON.stringify(answer.body) };
      },
    },
    () => ({ url: 'http://192.168.1.20:8787', token: 'tok', offlineMode: true }),
  );
  return { search: new CompanionVaultSearch(client), seen };
}

describe('CompanionVaultSearch', () => {
  it("asks the companion's search with the filters and answers as the device index would", async () => {
    const body: SearchResponse = { results: [visa], next_cursor: null, mode: 'hybrid' };
    const { search, seen } = searchOver({ status: 200, body });
    const hits = await search.search('What is the visa fee?', { folder: 'Travel', tag: '#trip' });
    const url = new URL(seen[0]!.url);
    expect(url.pathname).toBe('/api/v1/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      q: 'What is the visa fee?',
      limit: '10',
      folder: 'Travel',
      tag: 'trip',
    });
    expect(seen[0]!.headers).toEqual({ Authorization: 'Bearer tok' });
    expect(hits).toEqual([
      {
        citation: visa.citation,
        chunkId: 'Travel/Visa.md#L3',
        terms: ['visa', 'fee'],
        mode: 'hybrid',
      },
    ]);
    expect(search.mode).toBe('hybrid');
  });

  it("keeps only the chat's attached notes, and says why a search failed", async () => {
    const body: SearchResponse = { results: [visa], next_cursor: null, mode: 'keyword' };
    expect(
      await searchOver({ status: 200, body }).search.search('fee', { paths: ['Other.md'] }),
    ).toEqual([]);
    const failing = searchOver({
      status: 503,
      body: { error: { code: 'INDEX_NOT_READY', message: 'still indexing' } },
    });
    await expect(failing.search.search('fee')).rejects.toThrow(/503|still indexing/);
  });
});
