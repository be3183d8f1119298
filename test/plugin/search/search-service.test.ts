import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { describeIndexProgress } from '../../../plugin/search/index-progress';
import { SearchService } from '../../../plugin/search/search-service';
import { FakeEmbedder } from './fake-embedder';
import { FakeVault, ManualTimeSlicer } from './fakes';

const services: SearchService[] = [];
afterEach(() => {
  for (const service of services.splice(0)) service.close();
});

function service(key: string, embedder: FakeEmbedder | null, reason?: string) {
  const scheduler = new ManualTimeSlicer();
  const vault = new FakeVault(scheduler, {
    'a.md': '# Alpha\n\nThe quokka lives on Rottnest.',
    'Templates/t.md': 'quokka template',
  });
  const created = new SearchService({
    vaultKey: key,
    source: vault,
    scheduler,
    excludeGlobs: ['Templates/'],
    embedder,
    ...(reason ? { keywordOnlyReason: reason } : {}),
  });
  services.push(created);
  return { service: created, scheduler, vault };
}

describe('SearchService', () => {
  it('answers nothing before start, then searches; excluded folders stay out', async () => {
    const { service: search } = service('svc-a', null, 'embeddings are off in settings');
    expect(search.ready).toBe(false);
    expect(await search.search('quokka')).toEqual([]);
    await search.start();
    expect(search.ready).toBe(true);
    expect((await search.search('quokka')).map((hit) => hit.citation.path)).toEqual(['a.md']);
    expect(search.mode).toBe('keyword');
    expect(search.modeLabel).toBe('keyword only (embeddings are off in settings)');
  });

  it('labels hybrid search with its model and follows vault events', async () => {
    const { service: search, scheduler, vault } = service('svc-b', new FakeEmbedder('m-1', 8));
    await search.start();
    expect(search.modeLabel).toBe('hybrid: keyword + m-1');
    vault.write('b.md', 'wombats dig burrows');
    search.fileChanged('b.md');
    scheduler.advance(500);
    await search.idle();
    expect((await search.search('wombats'))[0]).toMatchObject({
      mode: 'hybrid',
      citation: { path: 'b.md' },
    });
    vault.rename('b.md', 'c.md');
    search.fileRenamed('b.md', 'c.md');
    vault.delete('a.md');
    search.fileDeleted('a.md');
    scheduler.advance(500);
    await search.idle();
    expect((await search.search('wombats'))[0]?.citation.path).toBe('c.md');
    expect(await search.search('quokka')).toEqual([]);
  });

  it('closing before the store opened leaves nothing running', async () => {
    const { service: search, scheduler } = service('svc-c', null);
    const starting = search.start();
    search.close();
    await starting;
    expect(search.ready).toBe(false);
    expect(scheduler.pendingTimers).toBe(0);
  });
});

describe('describeIndexProgress', () => {
  it('says what the status bar shows', () => {
    expect(describeIndexProgress({ phase: 'indexing', done: 1240, total: 10000 })).toBe(
      'Cairn: indexing 1,240/10,000',
    );
    expect(describeIndexProgress({ phase: 'embedding', done: 3, total: 7 })).toBe(
      'Cairn: embedding 3/7',
    );
    expect(describeIndexProgress({ phase: 'loading', done: 0, total: 0 })).toBe(
      'Cairn: loading index',
    );
    expect(describeIndexProgress({ phase: 'loading', done: 5, total: 9 })).toBe(
      'Cairn: loading index 5/9',
    );
    expect(describeIndexProgress({ phase: 'idle', done: 0, total: 0 })).toBe('');
  });
});
