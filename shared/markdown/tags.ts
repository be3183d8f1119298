/**
 * Obsidian tags: inline `#tags` in prose and the `tags` property.
 *
 * A tag is letters (any script, emoji included), digits, `_`, `-` and `/` (for nesting),
 * with at least one character that is not a digit (`#1984` is not a tag, `#y1984` is). An
 * inline tag's `#` starts the line or follows whitespace, so `a#b`, URL fragments
 * (`https://x.org/#top`), wikilink headings (`[[Note#Part]]`), escaped `\#x` and HTML
 * entities (`&#123;`) are not tags; neither is a heading marker (`# Title`, `## Part`).
 * Tags are case-insensitive: the first spelling met is kept.
 */
import { proseLines } from './prose-lines';

// Emoji sequences join with ZWJ and take a variation selector; alternatives, since ESLint
// rightly objects to combining characters inside a character class.
const TAG_CHARACTER = String.raw`(?:[\p{L}\p{M}\p{N}_\-/\p{Extended_Pictographic}]|\u{200D}|\u{FE0F})`;
const TAG_BODY = new RegExp(`^${TAG_CHARACTER}+$`, 'u');
// `(^|\s)` rather than a lookbehind, which older iOS cannot parse (the plugin runs there).
const INLINE_TAG = new RegExp(`(?:^|\\s)#(${TAG_CHARACTER}+)`, 'gu');

/** True when `tag` (without `#`) is a tag Obsidian would recognise. */
export function isValidTag(tag: string): boolean {
  return TAG_BODY.test(tag) && /[^0-9]/u.test(tag);
}

/** Inline tags of a Markdown body, without `#`, in order of appearance, not yet deduplicated. */
export function findInlineTags(body: string): string[] {
  const tags: string[] = [];
  for (const line of proseLines(body)) {
    if (!line.text.includes('#')) continue;
    for (const match of line.text.matchAll(INLINE_TAG)) {
      const tag = match[1];
      if (tag !== undefined && isValidTag(tag)) tags.push(tag);
    }
  }
  return tags;
}

/** `tag` with a leading `#` and surrounding spaces removed (front-matter tags may carry one). */
export function normalizeTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith('#') ? trimmed.slice(1) : trimmed;
}

/** Drops case-insensitive repeats, keeping the first spelling and the order. */
export function dedupeCaseInsensitive(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const value of values) {
    const key = value.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(value);
  }
  return result;
}
