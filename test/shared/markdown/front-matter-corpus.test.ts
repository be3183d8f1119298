import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter, updateFrontMatter } from '../../../shared/markdown/front-matter';
import { extractNoteMeta } from '../../../shared/markdown/note-meta';
import { optionalCorpus, repoRoot } from '../../helpers/corpora';

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

// In-repo vaults always run, so a bare clone tests real Markdown; the Obsidian Help vault (team
// corpora, beside the repository) adds 173 notes written by others where it is present.
const vaults: Array<[string, string | undefined, number]> = [
  ['the handbook fixture vault', join(repoRoot, 'test/fixtures/vaults/handbook'), 8],
  ['the sample vault', join(repoRoot, 'companion/sample-vault'), 5],
  ['the Obsidian Help vault', optionalCorpus('obsidian-help-en'), 100],
];

describe.each(vaults)('front matter over %s', (_name, root, minimumNotes) => {
  const notes = root
    ? markdownFiles(root).map((path) => ({
        path: relative(root, path).split('\\').join('/'),
        text: readFileSync(path, 'utf8'),
      }))
    : [];
  if (!root) {
    it.skip('corpus absent', () => {});
    return;
  }

  it('finds the vault', () => {
    expect(notes.length).toBeGreaterThanOrEqual(minimumNotes);
    expect(
      notes.filter((note) => parseFrontMatter(note.text).ok && note.text.startsWith('---')).length,
    ).toBeGreaterThan(1);
  });

  it('parses every note without throwing, and an empty update returns identical bytes', () => {
    for (const note of notes) {
      const parsed = parseFrontMatter(note.text);
      expect(parsed.ok, note.path).toBe(true);
      expect(() =>
        extractNoteMeta({ path: note.path, data: parsed.ok ? parsed.data : {}, body: parsed.body }),
      ).not.toThrow();
      const update = updateFrontMatter(note.text, {});
      expect(update, note.path).toEqual({ ok: true, text: note.text });
    }
  });

  it('setting then deleting a new key returns the original bytes of every note with front matter', () => {
    for (const note of notes.filter((candidate) => candidate.text.startsWith('---'))) {
      const added = updateFrontMatter(note.text, {
        cairn_probe: '2026-11-22T10:30:00+01:00',
        cairn_list: ['a', 'b'],
      });
      expect(added.ok, note.path).toBe(true);
      if (!added.ok) continue;
      const reread = parseFrontMatter(added.text);
      expect(reread.ok && reread.data.cairn_probe, note.path).toBe('2026-11-22T10:30:00+01:00');
      expect(reread.body, note.path).toBe(parseFrontMatter(note.text).body);
      const removed = updateFrontMatter(added.text, {
        cairn_probe: undefined,
        cairn_list: undefined,
      });
      expect(removed, note.path).toEqual({ ok: true, text: note.text });
    }
  });

  it('setting every existing key to its own value changes no byte', () => {
    for (const note of notes) {
      const parsed = parseFrontMatter(note.text);
      if (!parsed.ok || !parsed.hasFrontMatter) continue;
      expect(updateFrontMatter(note.text, parsed.data), note.path).toEqual({
        ok: true,
        text: note.text,
      });
    }
  });

  it('changing every existing key keeps the other data and every body byte', () => {
    for (const note of notes) {
      const parsed = parseFrontMatter(note.text);
      if (!parsed.ok || !parsed.hasFrontMatter) continue;
      for (const key of Object.keys(parsed.data)) {
        const changed = updateFrontMatter(note.text, { [key]: ['changed', 'value'] });
        expect(changed.ok, `${note.path} ${key}`).toBe(true);
        if (!changed.ok) continue;
        const reread = parseFrontMatter(changed.text);
        expect(reread.ok && reread.data, `${note.path} ${key}`).toEqual({
          ...parsed.data,
          [key]: ['changed', 'value'],
        });
        expect(changed.text.endsWith(parsed.body), `${note.path} ${key}`).toBe(true);
      }
    }
  });
});
