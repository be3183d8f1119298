/** A piece of an excerpt, marked when it is one of the query's words. */
export interface HighlightSegment {
  text: string;
  match: boolean;
}

/**
 * Splits `text` into plain and matched runs for the results list. A word matches a term when
 * one starts with the other (at least 3 characters shared), so stems and prefixes light up
 * the way the index matched them ("plans" for "planning", "embed" for "embedding").
 */
export function highlightSegments(text: string, terms: readonly string[]): HighlightSegment[] {
  const wanted = terms.map((term) => term.toLowerCase()).filter((term) => term.length > 0);
  const segments: HighlightSegment[] = [];
  const push = (piece: string, match: boolean) => {
    const last = segments[segments.length - 1];
    if (last && last.match === match) last.text += piece;
    else if (piece !== '') segments.push({ text: piece, match });
  };
  let index = 0;
  for (const found of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = found[0];
    const start = found.index;
    push(text.slice(index, start), false);
    push(
      word,
      wanted.some((term) => wordMatches(word.toLowerCase(), term)),
    );
    index = start + word.length;
  }
  push(text.slice(index), false);
  return segments;
}

function wordMatches(word: string, term: string): boolean {
  if (word === term) return true;
  const shorter = Math.min(word.length, term.length);
  if (shorter < 3) return false;
  return (
    word.startsWith(term) ||
    (term.startsWith(word) && word.length >= 4) ||
    commonPrefix(word, term) >= Math.max(4, shorter - 2)
  );
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Where a hit's words sit in the opened note: a 0-based line, and the word's columns. */
export interface MatchRange {
  line: number;
  from: number;
  to: number;
}

/**
 * The first word in `lines` matching one of `terms` (by the same rule as the excerpt's
 * highlighting), searched from `firstLine` (0-based) to `lastLine` inclusive; null when none
 * does, so the editor is only scrolled there.
 */
export function firstMatch(
  getLine: (line: number) => string,
  firstLine: number,
  lastLine: number,
  terms: readonly string[],
): MatchRange | null {
  const wanted = terms.map((term) => term.toLowerCase()).filter((term) => term.length > 0);
  if (wanted.length === 0) return null;
  for (let line = firstLine; line <= lastLine; line++) {
    for (const found of getLine(line).matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = found[0].toLowerCase();
      if (wanted.some((term) => wordMatches(word, term))) {
        return { line, from: found.index, to: found.index + found[0].length };
      }
    }
  }
  return null;
}
