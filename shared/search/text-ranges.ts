/*
 * Splitting text into pieces by character offsets, never by copying: every piece is a
 * `[start, end)` range into one source string, so a chunk's text is always an exact slice of
 * the note and its line numbers can be computed from its offsets.
 */

/** A half-open range `[start, end)` of character offsets into a source string. */
export interface TextRange {
  start: number;
  end: number;
}

/** How a range may be cut when it is too long, tried in this order. */
export type SplitLevel = 'paragraph' | 'line' | 'sentence' | 'hard';

/** Prose: blank lines, then lines (lists), then sentences, then words. */
export const PROSE_LEVELS: readonly SplitLevel[] = ['paragraph', 'line', 'sentence', 'hard'];
/** Code and tables: only between lines, and inside a line only when it alone is too long. */
export const BLOCK_LEVELS: readonly SplitLevel[] = ['line', 'hard'];

/** The range with leading and trailing white space removed; empty ranges collapse to `start`. */
export function trimRange(source: string, range: TextRange): TextRange {
  let { start, end } = range;
  while (start < end && isSpace(source.charCodeAt(start))) start++;
  while (end > start && isSpace(source.charCodeAt(end - 1))) end--;
  return { start, end };
}

/**
 * Cuts `range` into trimmed, non-empty ranges of at most `maxChars` each, using the coarsest
 * level in `levels` that helps and finer ones only for the parts still too long.
 */
export function splitRange(
  source: string,
  range: TextRange,
  maxChars: number,
  levels: readonly SplitLevel[] = PROSE_LEVELS,
): TextRange[] {
  const trimmed = trimRange(source, range);
  if (trimmed.end <= trimmed.start) return [];
  if (trimmed.end - trimmed.start <= maxChars) return [trimmed];
  const [level, ...finer] = levels;
  if (level === undefined) return hardSplit(source, trimmed, maxChars);
  const parts =
    level === 'hard' ? hardSplit(source, trimmed, maxChars) : cutAt(source, trimmed, level);
  if (parts.length <= 1) return splitRange(source, trimmed, maxChars, finer);
  return parts.flatMap((part) => splitRange(source, part, maxChars, finer));
}

function cutAt(
  source: string,
  range: TextRange,
  level: 'paragraph' | 'line' | 'sentence',
): TextRange[] {
  const pattern =
    level === 'paragraph'
      ? /\n[ \t]*\n\s*/g
      : level === 'line'
        ? /\n/g
        : new RegExp(SENTENCE_END, 'g');
  // Matching on the range's own text keeps each call linear in the range, not the note.
  const text = source.slice(range.start, range.end);
  const parts: TextRange[] = [];
  let from = range.start;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const at = range.start + match.index;
    // A sentence keeps its punctuation; only the white space after it is dropped.
    const end = level === 'sentence' ? at + match[1]!.length : at;
    pushTrimmed(source, parts, { start: from, end });
    from = at + match[0].length;
  }
  pushTrimmed(source, parts, { start: from, end: range.end });
  return parts;
}

/** End of a sentence: terminal punctuation, optional closing quotes/brackets, then white space. */
const SENTENCE_END = /([.!?…。！？]+["'”’)\]]*)\s+/;

function pushTrimmed(source: string, parts: TextRange[], range: TextRange): void {
  const trimmed = trimRange(source, range);
  if (trimmed.end > trimmed.start) parts.push(trimmed);
}

/**
 * Cuts at the last white space that keeps a piece within `maxChars` (if it is past the middle),
 * otherwise exactly at `maxChars`, stepping back one unit rather than splitting a surrogate pair.
 */
function hardSplit(source: string, range: TextRange, maxChars: number): TextRange[] {
  const parts: TextRange[] = [];
  let start = range.start;
  while (range.end - start > maxChars) {
    const limit = start + maxChars;
    let cut = limit;
    for (let i = limit; i > start + maxChars / 2; i--) {
      if (isSpace(source.charCodeAt(i))) {
        cut = i;
        break;
      }
    }
    if (cut === limit && isLowSurrogate(source.charCodeAt(cut))) cut--;
    pushTrimmed(source, parts, { start, end: cut });
    start = cut;
    while (start < range.end && isSpace(source.charCodeAt(start))) start++;
  }
  pushTrimmed(source, parts, { start, end: range.end });
  return parts;
}

/**
 * Where a chunk that continues the text ending at `end` should start so that it repeats up to
 * `overlapChars` of it: the first sentence start in that window, else the first word start,
 * else `end` (no overlap). Never before `floor`.
 */
export function overlapStart(
  source: string,
  floor: number,
  end: number,
  overlapChars: number,
): number {
  if (overlapChars <= 0) return end;
  const from = Math.max(floor, end - overlapChars);
  let firstWord = -1;
  for (let i = Math.max(from, 1); i < end; i++) {
    if (!isSpace(source.charCodeAt(i - 1)) || isSpace(source.charCodeAt(i))) continue;
    if (endsSentence(source, i - 1)) return i;
    if (firstWord < 0) firstWord = i;
  }
  return firstWord < 0 ? end : firstWord;
}

/** Whether the white space at `space` follows sentence-ending punctuation. */
function endsSentence(source: string, space: number): boolean {
  let i = space;
  while (i > 0 && isSpace(source.charCodeAt(i - 1))) i--;
  while (i > 0 && '"\'”’)]'.includes(source.charAt(i - 1))) i--;
  return i > 0 && '.!?…。！？'.includes(source.charAt(i - 1));
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 0xa0;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Groups consecutive ranges into pieces of about `targetChars` (never more than `maxChars`,
 * measured from the first range's start to the last one's end). A range longer than
 * `targetChars` gets a piece of its own. Ranges must be sorted and each at most `maxChars`.
 */
export function packRanges<T extends TextRange>(
  ranges: readonly T[],
  targetChars: number,
  maxChars: number,
): T[][] {
  const pieces: T[][] = [];
  let current: T[] = [];
  for (const range of ranges) {
    const first = current[0];
    if (first !== undefined && range.end - first.start > Math.min(targetChars, maxChars)) {
      pieces.push(current);
      current = [];
    }
    current.push(range);
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

/** Offsets of the start of each line; `lineOf` maps an offset to its 0-based line. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(source: string) {
    for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) {
      this.starts.push(i + 1);
    }
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** Start offset of 0-based line `line`. */
  startOf(line: number): number {
    return this.starts[line] ?? Number.POSITIVE_INFINITY;
  }

  /** 0-based line containing `offset`. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** A range that knows whether it is prose (overlap may repeat it) or code/table (never). */
export interface UnitRange extends TextRange {
  prose: boolean;
}

/**
 * Packs units into pieces (`packRanges`), then starts each piece up to `overlapChars` early
 * when the previous piece ended in prose and the result still fits in `maxChars`.
 */
export function packWithOverlap(
  source: string,
  units: readonly UnitRange[],
  sizes: { targetChars: number; maxChars: number; overlapChars: number },
): TextRange[] {
  const ranges: TextRange[] = [];
  let previous: UnitRange | undefined;
  for (const piece of packRanges(units, sizes.targetChars, sizes.maxChars)) {
    const first = piece[0]!;
    const last = piece[piece.length - 1]!;
    let start = first.start;
    if (previous?.prose) {
      // Only the previous piece's last unit is repeated, so overlap never reaches into code.
      const repeated = overlapStart(source, previous.start, previous.end, sizes.overlapChars);
      if (last.end - repeated <= sizes.maxChars) start = repeated;
    }
    ranges.push({ start, end: last.end });
    previous = last;
  }
  return ranges;
}
