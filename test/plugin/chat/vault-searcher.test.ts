import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VaultSearcher } from '../../../plugin/chat/vault-searcher';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import { chunkNote } from '../../../shared/search/chunk';
import { repoRoot } from '../../helpers/corpora';
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

describe('the plugin chat answer through the one answer gate', () => {
  /** The real on-device engine over the sample vault's notes (keyword only). */
  function sampleVaultSearch(): VaultSearch {
    const engine = createSearchEngine({ embedder: null });
    const root = join(repoRoot, 'companion/sample-vault');
    for (const path of ['Travel/Visa rules.md', 'Travel/Lisbon trip.md', 'Garden.md']) {
      const parsed = noteInputFromMarkdown(path, readFileSync(join(root, path), 'utf8'));
      if (!parsed.ok) throw new Error(parsed.problem.message);
      engine.upsertNote(path, chunkNote(parsed.input));
    }
    return {
      ready: true,
      mode: 'keyword',
      search: (query, options) => engine.search(query, options),
    };
  }

  it('quotes the visa note for the visa asked about', async () => {
    const answerer = new ExtractiveAnswerer(new VaultSearcher(sampleVaultSearch()));
    const answer = await answerer.answer({
      question: 'Which documents does the Schengen visa need?',
    });
    expect(answer.citations.map((c) => c.path)).toContain('Travel/Visa rules.md');
  });

  it('quotes nothing for a visa the vault does not name', async () => {
    const search = sampleVaultSearch();
    const question = 'Which documents does the Canadian visa need?';
    // Search still lists the visa note, below the answer line...
    const hits = await search.search(question);
    expect(hits[0]?.citation.path).toBe('Travel/Visa rules.md');
    expect(hits[0]?.relevance).toBeLessThan(0.5);
    // ...but an answer does not quote it.
    const answer = await new ExtractiveAnswerer(new VaultSearcher(search)).answer({ question });
    expect(answer.citations).toEqual([]);
  });
});
