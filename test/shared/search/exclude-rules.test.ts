import { describe, expect, it } from 'vitest';
import { ExcludeRules } from '../../../shared/search/exclude-rules';

// One rule set for the plugin's index and the companion's, so both index the same files.
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

describe('ExcludeRules: the plugin settings examples', () => {
  it.each([
    ['Templates/**', 'Templates/daily.md', true],
    ['Templates/**', 'Notes/Templates.md', false],
    ['Archive/', 'Archive/2020/old.md', true],
    ['*.excalidraw.md', 'Drawings/x.excalidraw.md', true],
    ['Notes/?.md', 'Notes/a.md', true],
    ['Notes/?.md', 'Notes/ab.md', false],
    ['(weird)[chars].md', '(weird)[chars].md', true],
    ['', 'anything.md', false],
  ])('%s vs %s → %s', (glob, path, excluded) => {
    expect(new ExcludeRules([glob]).excludes(path)).toBe(excluded);
  });

  it('always skips dot-folders and dot-files', () => {
    const rules = new ExcludeRules([]);
    expect(rules.excludes('.obsidian/workspace.md')).toBe(true);
    expect(rules.excludes('Notes/.hidden.md')).toBe(true);
    expect(rules.excludes('Notes/visible.md')).toBe(false);
  });
});
