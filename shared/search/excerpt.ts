import { foldText, isUnspacedScript, tokenize } from './tokenize';
import type { TextRange } from './text-ranges';

export const EXCERPT_MAX_CHARS = 240;

export interface Excerpt {
  /** Display text: white space collapsed, light Markdown removed, `…` where it was cut. */
  text: string;
  /** The part of the source text it was taken from, `[start, end)`. */
  source: TextRange;
  /** The cluster of matched terms inside `source`; absent when no term occurs. */
  match?: TextRange;
  /** Where query terms occur in `text`, as offsets (render them however the UI likes). */
  highlights: TextRange[];
}

/**
 * The window of `text` (at most `maxChars` once cleaned, ellipses included) that holds the most
 * distinct query terms, then the most occurrences; the start of the text when no term occurs.
 * Terms match at word starts, as prefixes (`remind` highlights `reminders`), case-insensitively.
 */
export function bestExcerpt(
  text: string,
  terms: readonly string[],
  maxChars: number = EXCERPT_MAX_CHARS,
): Excerpt {
  const wanted = [...new Set(terms.flatMap((term) => tokenize(term)))];
  const hits = findHits(text, wanted);
  const budget = Math.max(1, maxChars - 2);
  let from = 0;
  let match: TextRange | undefined;
  if (hits.length > 0) {
    match = densestWindow(hits, budget);
    // Place the matched cluster a third into the window, leaving context before it.
    const slack = Math.max(0, budget - (match.end - match.start));
    from = Math.max(0, match.start - Math.floor(slack / 3));
  }
  const source = wordAligned(text, from, Math.min(text.length, from + budget));
  const body = clean(text.slice(source.start, source.end));
  const prefix = source.start > 0 ? '…' : '';
  const suffix = source.end < text.length ? '…' : '';
  const display = trimToLength(prefix + body + suffix, maxChars);
  const highlights = findHits(display, wanted).map(({ start, end }) => ({ start, end }));
  return { text: display, source, ...(match === undefined ? {} : { match }), highlights };
}

interface Hit extends TextRange {
  term: number;
}

function findHits(text: string, terms: readonly string[]): Hit[] {
  if (terms.length === 0) return [];
  const hits: Hit[] = [];
  const words = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/gu;
  // Words are folded one by one (not the whole text) so offsets stay those of `text`.
  const lower = text.toLowerCase();
  for (let match = words.exec(lower); match !== null; match = words.exec(lower)) {
    const word = foldText(match[0].replace(/['’]/g, ''));
    // A Chinese or Japanese run holds many words: a term matches anywhere inside it.
    const term = terms.findIndex((candidate) =>
      isUnspacedScript(candidate) ? word.includes(candidate) : word.startsWith(candidate),
    );
    if (term >= 0) hits.push({ start: match.index, end: match.index + match[0].length, term });
  }
  return hits;
}

/** The span of hits no wider than `width` covering the most distinct terms, then the most hits. */
function densestWindow(hits: readonly Hit[], width: number): TextRange {
  let best = { distinct: 0, count: 0, start: 0, end: 0 };
  const counts = new Map<number, number>();
  let left = 0;
  for (let right = 0; right < hits.length; right++) {
    const hit = hits[right]!;
    counts.set(hit.term, (counts.get(hit.term) ?? 0) + 1);
    while (left < right && hit.end - hits[left]!.start > width) {
      const term = hits[left]!.term;
      const remaining = counts.get(term)! - 1;
      if (remaining === 0) counts.delete(term);
      else counts.set(term, remaining);
      left++;
    }
    const count = right - left + 1;
    if (counts.size > best.distinct || (counts.size === best.distinct && count > best.count)) {
      best = { distinct: counts.size, count, start: hits[left]!.start, end: hit.end };
    }
  }
  return { start: best.start, end: best.end };
}

/** Moves both ends inwards to word boundaries, unless that would leave nothing. */
function wordAligned(text: string, start: number, end: number): TextRange {
  let from = start;
  if (from > 0 && /\S/.test(text.charAt(from - 1))) {
    const space = text.slice(from, end).search(/\s/);
    if (space >= 0 && from + space < end) from += space;
  }
  let to = end;
  if (to < text.length && /\S/.test(text.charAt(to))) {
    const space = text.slice(from, to).search(/\s\S*$/);
    if (space > 0) to = from + space;
  }
  while (from < to && /\s/.test(text.charAt(from))) from++;
  while (to > from && /\s/.test(text.charAt(to - 1))) to--;
  return { start: from, end: to };
}

/**
 * Markdown a reader should not see in a quote: fences, heading marks, bullets, link brackets,
 * emphasis, and the block id that ends a line (`^r-7k2p`, hidden in Obsidian's reading view).
 */
function clean(text: string): string {
  return text
    .replace(/^[ \t]*(?:`{3,}|~{3,})[^\n]*$/gm, '')
    .replace(/[ \t]+\^[A-Za-z0-9-]+[ \t]*$/gm, '')
    .replace(/^[ \t]*#{1,6}[ \t]+/gm, '')
    .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/gm, '')
    .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/!?\[\[([^\]]*)\]\]/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|==|~~)(?=\S)([^]*?\S)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

function trimToLength(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = text.slice(0, maxChars - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
}
