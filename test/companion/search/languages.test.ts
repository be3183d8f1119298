import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridSearch } from '../../../companion/search/hybrid-search';
import { FIXTURE_VAULTS, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * The companion's FTS5 index over notes in German, French, Chinese and Japanese
 * (test/fixtures/vaults/languages, written for these tests): words of unspaced scripts are
 * segmented on both sides, non-English notes are stemmed in their language (front-matter `lang`
 * or detected), and case, accents and Unicode normal form never change the results.
 */

let fixture: IndexerFixture;
beforeAll(async () => {
  fixture = await startIndexer({ source: join(FIXTURE_VAULTS, 'languages') });
  await fixture.indexer.whenIdle();
});
afterAll(async () => {
  await fixture?.close();
});

async function paths(query: string): Promise<string[]> {
  const outcome = await new HybridSearch({ index: fixture.indexer.queries }).search({
    query,
    limit: 10,
  });
  return outcome.hits.map((hit) => hit.chunk.path);
}

describe('segmentation of Chinese and Japanese', () => {
  it('finds a Chinese word inside a sentence written without spaces', async () => {
    expect((await paths('文件夹'))[0]).toBe('设置.md');
    expect((await paths('配置文件夹在哪里'))[0]).toBe('设置.md');
  });

  it('finds a Japanese word inside a sentence written without spaces', async () => {
    expect((await paths('フォルダ'))[0]).toBe('天気.md');
    expect(await paths('東京の天気')).toContain('天気.md');
  });
});

describe('stemming per language', () => {
  it('German: an inflected form the note does not contain', async () => {
    // The note says "Ordner" and "Einstellungen"; prefixes alone cannot match these.
    expect((await paths('Ordnern'))[0]).toBe('Einstellungen.md');
    expect((await paths('Synchronisierungen'))[0]).toBe('Einstellungen.md');
  });

  it('French: a plural the note has only in the singular', async () => {
    expect((await paths('dossiers'))[0]).toBe('Paramètres.md');
    expect((await paths('Où sont les paramètres des modules ?'))[0]).toBe('Paramètres.md');
  });

  it('keeps unrelated notes of the same language out', async () => {
    expect(await paths('Ordnern')).not.toContain('Sauerteig.md');
  });
});

describe('case, accents and Unicode normal form', () => {
  it('gives the same results for every spelling', async () => {
    const spellings = ['café', 'cafe', 'CAFÉ', 'Cafe\u0301', 'ｃａｆé'];
    const results = await Promise.all(spellings.map(paths));
    expect(results[0]![0]).toBe('Café.md');
    for (const result of results) expect(result).toEqual(results[0]);
  });

  it('records the languages it stems in', () => {
    expect(fixture.indexer.store.stemLanguages().sort()).toEqual(['de', 'fr']);
  });
});
