import { describe, expect, it } from 'vitest';
import { VaultSearcher } from '../../../plugin/chat/vault-searcher';
import type { VaultSearch, VaultSearchOptions } from '../../../plugin/search/vault-search';

function vaultSearch(
  ready: boolean,
  calls: Array<[string, VaultSearchOptions | undefined]> = [],
): VaultSearch {
  return {
    ready,
    mode: 'keyword',
    search: async (query, options) => {
      calls.push([query, options]);
      return [
        {
          citation: {
            type: 'note',
            path: 'Visa.md',
            title: 'Visa',
            lines: [1, 1],
            excerpt: 'fee',
            score: 0.7,
          },
          chunkId: 'c1',
          terms: ['visa'],
          mode: 'keyword',
        },
      ];
    },
  };
}

describe('VaultSearcher', () => {
  it('passes filters through and returns citations with their scores', async () => {
    const calls: Array<[string, VaultSearchOptions | undefined]> = [];
    const hits = await new VaultSearcher(vaultSearch(true, calls)).search({
      query: 'visa',
      limit: 5,
      type: 'note',
      tag: 'travel',
      folder: 'Trips',
    });
    expect(calls).toEqual([['visa', { limit: 5, type: 'note', tag: 'travel', folder: 'Trips' }]]);
    expect(hits).toEqual([{ citation: expect.objectContaining({ path: 'Visa.md' }), score: 0.7 }]);
  });

  it('is UNAVAILABLE until the index is ready, and refuses date filters it cannot apply', async () => {
    await expect(
      new VaultSearcher(vaultSearch(false)).search({ query: 'x' }),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    await expect(
      new VaultSearcher(vaultSearch(true)).search({ query: 'x', to: '2026-11-30' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'to' });
  });
});
