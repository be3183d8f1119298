import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkNote } from '../../../shared/search/chunk';
import { createSearchEngine } from '../../../plugin/search/search-engine';
import type { SearchEngine } from '../../../plugin/search/search-engine';
import { noteInputFromMarkdown } from '../../../plugin/search/note-input';

/*
 * The plugin's keyword index over notes in German, French, Chinese and Japanese
 * (test/fixtures/vaults/languages, written for these tests; the companion's FTS5 index is
 * tested on the same notes): segmentation, stemming per language, case and accents.
 */

const VAULT = join(__dirname, '../../fixtures/vaults/languages');

function engine(): SearchEngine {
  const search = createSearchEngine({});
  for (const name of readdirSync(VAULT)) {
    const result = noteInputFromMarkdown(name, readFileSync(join(VAULT, name), 'utf8'));
    if (!result.ok) throw new Error(result.problem.message);
    search.upsertNote(name, chunkNote(result.input));
  }
  return search;
}

async function top(query: string): Promise<string | undefined> {
  return (await engine().search(query))[0]?.citation.path;
}

describe('plugin keyword search in other languages', () => {
  it('finds Chinese and Japanese words inside unspaced sentences', async () => {
    expect(await top('文件夹')).toBe('设置.md');
    expect(await top('同步')).toBe('设置.md');
    expect(await top('フォルダ')).toBe('天気.md');
  });

  it('stems German and French notes in their language', async () => {
    expect(await top('Die Einstellung der Erweiterung')).toBe('Einstellungen.md');
    expect(await top('les dossiers de configuration')).toBe('Paramètres.md');
  });

  it('ignores case, accents and Unicode normal form', async () => {
    const spellings = ['café', 'CAFE', 'Cafe\u0301'];
    const results = await Promise.all(spellings.map(top));
    expect(results).toEqual(['Café.md', 'Café.md', 'Café.md']);
  });
});
