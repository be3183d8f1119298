import { describe, expect, it } from 'vitest';
import { ExcludeRules, indexableKind } from '../../../companion/indexer/exclude';

describe('ExcludeRules', () => {
  it('always excludes dot-files and dot-folders at any depth', () => {
    const rules = new ExcludeRules();
    for (const path of [
      '.obsidian',
      '.obsidian/plugins/cairn/data.json',
      '.trash/a.md',
      'A/.git/x.md',
      '.hidden.md',
    ]) {
      expect(rules.excludes(path), path).toBe(true);
    }
    expect(rules.excludes('Notes/a.md')).toBe(false);
    expect(rules.excludes('Notes/file.with.dots.md')).toBe(false);
  });

  it.each([
    ['Archive/', 'Archive/a.md', true],
    ['Archive/', 'Archive', true],
    ['Archive/', 'Archived/a.md', false],
    ['Archive', 'Archive/deep/a.md', true],
    ['Archive', 'Notes/Archive/a.md', true],
    ['*.excalidraw.md', 'Drawings/x.excalidraw.md', true],
    ['*.excalidraw.md', 'x.md', false],
    ['Daily/**/*.md', 'Daily/2026/11/22.md', true],
    ['Daily/**/*.md', 'Daily/22.md', true],
    ['Daily/**/*.md', 'Other/22.md', false],
    ['Templates/*', 'Templates/t.md', true],
    ['Templates/*', 'Templates/sub/t.md', true],
    ['Note?.md', 'Note1.md', true],
    ['Note?.md', 'Note12.md', false],
    ['(draft)+[x].md', '(draft)+[x].md', true],
    ['(draft)+[x].md', 'draft.md', false],
    ['', 'a.md', false],
    ['/Root/', 'Root/a.md', true],
  ])('glob %j on %j → %s', (glob, path, expected) => {
    expect(new ExcludeRules([glob]).excludes(path)).toBe(expected);
  });
});

describe('indexableKind', () => {
  it('reads Markdown, text and PDF by extension, any case', () => {
    expect(indexableKind('a.md')).toBe('markdown');
    expect(indexableKind('A.MD')).toBe('markdown');
    expect(indexableKind('a.txt')).toBe('text');
    expect(indexableKind('b.Pdf')).toBe('pdf');
    expect(indexableKind('c.png')).toBeNull();
    expect(indexableKind('md')).toBeNull();
  });
});
