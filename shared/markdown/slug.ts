/**
 * File names for notes Cairn creates: slugs of the title (docs/vault-format.md), e.g. `call-the-bank.md`.
 *
 * Latin letters are transliterated (NFKD, accents dropped; `ß` → `ss`, `æ` → `ae`, `ø` → `o`,
 * …), compatibility forms folded (`ﬁ` → `fi`, full-width `Ａ` → `a`). Letters of other
 * scripts (Cyrillic, Greek, CJK, Devanagari, …) are kept, lower-cased, because a lossy
 * romanisation would make a Japanese title `untitled`; every file system Obsidian runs on
 * stores them. Everything else (spaces, punctuation, emoji, and the characters illegal in
 * file names on Windows/macOS/Android `\ / : * ? " < > |` or in Obsidian links `# ^ [ ] |`)
 * becomes one `-`. Slugs are at most 80 characters, cut at a word boundary when there is one,
 * never empty (`untitled`) and never a reserved Windows device name (`con` → `con-note`).
 */

import { WINDOWS_RESERVED_STEM } from './portable-name';

export const MAX_SLUG_LENGTH = 80;
export const EMPTY_SLUG = 'untitled';

/** How many different short-id suffixes `uniqueNotePath` tries before giving up. */
export const MAX_SUFFIX_ATTEMPTS = 8;

/** Letters NFKD leaves whole, with their usual Latin spelling. */
const LATIN_LIGATURES: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  ł: 'l',
  Ł: 'l',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
};

export function slugify(title: string): string {
  const folded = title
    .normalize('NFKD')
    // Combining diacritics are the accents NFKD split off Latin, Greek and Cyrillic letters;
    // other marks (Devanagari vowel signs, …) are part of their letters and stay.
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .replace(/[ßẞæÆœŒøØđĐðÐłŁþÞıħĦ]/g, (letter) => LATIN_LIGATURES[letter] ?? letter)
    .toLowerCase();
  const hyphenated = folded.replace(/[^\p{L}\p{M}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  const slug = shorten(hyphenated);
  if (slug === '') return EMPTY_SLUG;
  return WINDOWS_RESERVED_STEM.test(slug) ? `${slug}-note` : slug;
}

/** Cuts to MAX_SLUG_LENGTH code points, at the last `-` when that keeps at least half. */
function shorten(slug: string): string {
  const codePoints = Array.from(slug);
  if (codePoints.length <= MAX_SLUG_LENGTH) return slug;
  const cut = codePoints.slice(0, MAX_SLUG_LENGTH).join('');
  const boundary = cut.lastIndexOf('-');
  const shortened = boundary >= cut.length / 2 ? cut.slice(0, boundary) : cut;
  return shortened.replace(/-+$/, '');
}

/**
 * `folder/<slug>.md`, or `folder/<slug>-<shortId>.md` when that is taken. `exists` must answer
 * case-insensitively (as macOS, Windows and Android storage do): `caseInsensitiveExists`
 * builds one from known paths. Throws when `shortId` gives something unusable or
 * MAX_SUFFIX_ATTEMPTS suffixes are all taken.
 */
export function uniqueNotePath(
  folder: string,
  title: string,
  exists: (path: string) => boolean,
  shortId: () => string,
): string {
  const prefix = normalizeFolder(folder);
  const slug = slugify(title);
  const plain = `${prefix}${slug}.md`;
  if (!exists(plain)) return plain;
  const tried = new Set<string>();
  for (let attempt = 0; attempt < MAX_SUFFIX_ATTEMPTS; attempt += 1) {
    const suffix = shortId();
    if (!/^[a-z0-9]{1,16}$/.test(suffix)) {
      throw new Error(
        `short id ${JSON.stringify(suffix)} must be 1-16 lowercase letters or digits`,
      );
    }
    if (tried.has(suffix)) continue;
    tried.add(suffix);
    const candidate = `${prefix}${slug}-${suffix}.md`;
    if (!exists(candidate)) return candidate;
  }
  throw new Error(
    `no free file name for "${slug}" in "${prefix || '/'}" after ${MAX_SUFFIX_ATTEMPTS} short-id suffixes`,
  );
}

/** An `exists` for `uniqueNotePath` over known vault paths, ignoring case as most file systems do. */
export function caseInsensitiveExists(paths: Iterable<string>): (path: string) => boolean {
  const known = new Set<string>();
  for (const path of paths) known.add(path.toLowerCase());
  return (path) => known.has(path.toLowerCase());
}

/** `''`, `/` → vault root; `Notes/`, `/Notes` → `Notes/`. */
function normalizeFolder(folder: string): string {
  const trimmed = folder.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}
