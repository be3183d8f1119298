import { describe, expect, it } from 'vitest';
import {
  caseInsensitiveExists,
  MAX_SLUG_LENGTH,
  slugify,
  uniqueNotePath,
} from '../../../shared/markdown/slug';

describe('slugify', () => {
  it.each([
    ['Call the bank', 'call-the-bank'],
    ['  Visa rules: summary  ', 'visa-rules-summary'],
    ['Crème brûlée à la française', 'creme-brulee-a-la-francaise'],
    ['Straße über Ærø', 'strasse-uber-aero'],
    ['Łódź, Kraków', 'lodz-krakow'],
    ['ﬁle Ｆｕｌｌ', 'file-full'],
    ['a\\b/c:d*e?f"g<h>i|j', 'a-b-c-d-e-f-g-h-i-j'],
    ['#tag ^block [[link]] | pipe', 'tag-block-link-pipe'],
    ['C++ & C# (2026)', 'c-c-2026'],
    ['...leading and trailing...', 'leading-and-trailing'],
    ['emoji 🚀 rocket 👩‍💻', 'emoji-rocket'],
    ['Привет мир', 'привет-мир'],
    ['日本語のメモ', '日本語のメモ'],
    ['한국어 노트', '한국어-노트'],
    ['हिन्दी नोट', 'हिन्दी-नोट'],
    ['Ελληνικά', 'ελληνικα'],
    ['', 'untitled'],
    ['   ', 'untitled'],
    ['!!!', 'untitled'],
    ['🚀', 'untitled'],
    ['\u0000\u0007\u001b', 'untitled'],
    ['CON', 'con-note'],
    ['nul', 'nul-note'],
    ['com1', 'com1-note'],
    ['lpt9', 'lpt9-note'],
    ['console', 'console'],
    ['line\nbreak\ttab', 'line-break-tab'],
    ['UPPER lower MiXeD', 'upper-lower-mixed'],
    ['2026-11-22 Meeting', '2026-11-22-meeting'],
    ['snake_case stays apart', 'snake-case-stays-apart'],
  ])('%j → %s', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('cuts long titles at a word boundary within the limit', () => {
    const slug = slugify('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
    expect(slug).toMatch(/^(word-)*word$/);
    expect(slug.length).toBeGreaterThan(MAX_SLUG_LENGTH - 6);
  });

  it('hard-cuts one very long word, never splitting a character', () => {
    expect(slugify('a'.repeat(500))).toBe('a'.repeat(MAX_SLUG_LENGTH));
    const cjk = slugify('語'.repeat(200));
    expect(Array.from(cjk)).toHaveLength(MAX_SLUG_LENGTH);
    const astral = slugify('𝒜'.repeat(200));
    expect(astral.normalize('NFC')).toBe(astral);
    expect(astral).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it('only ever yields characters that are safe in file names and links', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 500; round += 1) {
      const length = random() % 60;
      const title = Array.from({ length }, () => String.fromCodePoint(random() % 0x3000)).join('');
      const slug = slugify(title);
      expect(slug).not.toBe('');
      expect(slug).not.toMatch(/[\\/:*?"<>|#^[\]\s.]|^-|-$|--/);
      expect(Array.from(slug).length).toBeLessThanOrEqual(MAX_SLUG_LENGTH + 5);
    }
  });
});

describe('uniqueNotePath', () => {
  const ids = (...values: string[]) => {
    const queue = [...values];
    return () => queue.shift() ?? 'zzzz';
  };

  it('uses the slug when free, in the folder or the vault root', () => {
    const none = () => false;
    expect(uniqueNotePath('Cairn/Notes', 'Call the bank', none, ids())).toBe(
      'Cairn/Notes/call-the-bank.md',
    );
    expect(uniqueNotePath('Cairn/Notes/', 'x', none, ids())).toBe('Cairn/Notes/x.md');
    expect(uniqueNotePath('', 'x', none, ids())).toBe('x.md');
    expect(uniqueNotePath('/', 'x', none, ids())).toBe('x.md');
  });

  it('adds a short id on collision, case-insensitively, retrying taken suffixes', () => {
    const exists = caseInsensitiveExists(['Notes/Call-The-Bank.md', 'notes/call-the-bank-3f9a.md']);
    expect(uniqueNotePath('Notes', 'Call the bank', exists, ids('3f9a', '3f9a', 'b2c1'))).toBe(
      'Notes/call-the-bank-b2c1.md',
    );
  });

  it('gives up with a clear error when every suffix is taken, and rejects bad short ids', () => {
    expect(() => uniqueNotePath('N', 'x', () => true, ids('aaaa', 'bbbb'))).toThrow(
      /no free file name for "x"/,
    );
    expect(() => uniqueNotePath('N', 'x', (path) => path === 'N/x.md', ids('../../etc'))).toThrow(
      /short id/,
    );
  });
});
