import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { indexExclusions } from '../../../plugin/search/index-exclusions';
import { SearchService } from '../../../plugin/search/search-service';
import { VaultGraph } from '../../../plugin/related/vault-graph';
import { FakeVault, ManualTimeSlicer } from './fakes';

const services: SearchService[] = [];
afterEach(() => {
  for (const service of services.splice(0)) service.close();
});

describe('indexExclusions', () => {
  it("leaves out the chats folder and Obsidian's Excluded files (prefixes and /regex/)", () => {
    const excluded = indexExclusions({
      chatsFolder: 'Cairn/Chats',
      userIgnoreFilters: ['Archive/', '/\\.excalidraw\\.md$/', '/[unclosed/', 7],
    });
    expect(excluded('Cairn/Chats/2026-11-27 visa.md')).toBe(true);
    expect(excluded('Cairn/Chats old/x.md')).toBe(false);
    expect(excluded('Archive/2019.md')).toBe(true);
    expect(excluded('Drawings/plan.excalidraw.md')).toBe(true);
    expect(excluded('Visa.md')).toBe(false);
    expect(indexExclusions({ chatsFolder: '', userIgnoreFilters: undefined })('a.md')).toBe(false);
  });
});

describe('saved chats and Excluded files in search', () => {
  it('never answers from a saved chat that quotes the question', async () => {
    const scheduler = new ManualTimeSlicer();
    const vault = new FakeVault(scheduler, {
      'Visa.md': '# Visa\n\nThe visa fee is 80 euros, paid at the embassy.',
      'Cairn/Chats/2026-11-26 visa.md':
        '**You:** What is the visa fee?\n\n**Cairn:** The visa fee is 80 euros [1].\n\nSources: [[Visa]]',
      'Archive/old visa.md': 'The visa fee was 60 euros in 2019.',
    });
    const search = new SearchService({
      vaultKey: 'exclusions',
      source: vault,
      scheduler,
      excludeGlobs: [],
      alsoExcludes: indexExclusions({
        chatsFolder: 'Cairn/Chats',
        userIgnoreFilters: ['Archive/'],
      }),
      embedder: null,
    });
    services.push(search);
    await search.start();
    expect((await search.search('What is the visa fee?')).map((hit) => hit.citation.path)).toEqual([
      'Visa.md',
    ]);
  });

  it("keeps a chat's Sources links out of the related notes' link graph", () => {
    const excluded = indexExclusions({ chatsFolder: 'Cairn/Chats', userIgnoreFilters: [] });
    const graph = VaultGraph.build({
      resolvedLinks: {
        'Cairn/Chats/visa.md': { 'Visa.md': 1, 'Embassy.md': 1 },
        'Trip.md': { 'Visa.md': 1 },
      },
      paths: ['Cairn/Chats/visa.md', 'Trip.md', 'Visa.md', 'Embassy.md'],
      tagsOf: (path) =>
        path.startsWith('Cairn/') ? ['travel'] : path === 'Visa.md' ? ['travel'] : [],
      excluded,
    });
    const visa = graph.neighbourhood('Visa.md');
    expect([...visa.incoming]).toEqual(['Trip.md']);
    expect([...graph.neighbourhood('Embassy.md').incoming]).toEqual([]);
    expect(graph.notesSharingTags('Visa.md')).toEqual([]);
  });
});
