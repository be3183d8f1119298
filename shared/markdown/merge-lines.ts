/*
 * Three-way line merge (diff3) of two edits of the same text. Used when a write finds that its
 * file changed underneath it: `ours` is what the writer made of `base`, `theirs` is what someone
 * else (Obsidian, a sync client, the user) made of the same `base`. Changes in different places
 * are combined, neighbouring lines included, as are lines both added at the same spot (theirs
 * first) and deletions one side made inside the other's change or beside its deletion; other
 * changes to the same lines (or an insertion inside the other side's change) are a conflict,
 * and then the caller keeps both versions rather than choosing.
 */

export type LineMerge =
  | { readonly clean: true; readonly text: string }
  | { readonly clean: false; readonly reason: string };

/** Above this many cells in the trimmed comparison table the merge gives up (a conflict). */
const MAX_TABLE_CELLS = 4_000_000;

/**
 * Merges `ours` and `theirs`, both edits of `base`, line by line. Lines keep their own line
 * endings (a file with CRLF stays CRLF), and a last line without a newline stays without one.
 */
export function mergeLines(base: string, ours: string, theirs: string): LineMerge {
  if (ours === theirs || theirs === base) return { clean: true, text: ours };
  if (ours === base) return { clean: true, text: theirs };
  const baseLines = splitKeepingEnds(base);
  const ourLines = splitKeepingEnds(ours);
  const theirLines = splitKeepingEnds(theirs);
  const ourMatch = matchLines(baseLines, ourLines);
  const theirMatch = matchLines(baseLines, theirLines);
  if (ourMatch === null || theirMatch === null) {
    return { clean: false, reason: 'the file is too large to merge line by line' };
  }

  const out: string[] = [];
  let b = 0;
  let o = 0;
  let t = 0;
  for (;;) {
    // The next base line both sides kept, at or after the current position: a sync point.
    let sync = b;
    while (
      sync < baseLines.length &&
      !((ourMatch[sync] ?? -1) >= o && (theirMatch[sync] ?? -1) >= t)
    ) {
      sync++;
    }
    const atEnd = sync >= baseLines.length;
    const oEnd = atEnd ? ourLines.length : (ourMatch[sync] as number);
    const tEnd = atEnd ? theirLines.length : (theirMatch[sync] as number);
    const baseChunk = baseLines.slice(b, sync);
    const ourChunk = ourLines.slice(o, oEnd);
    const theirChunk = theirLines.slice(t, tEnd);
    if (sameLines(ourChunk, baseChunk)) out.push(...theirChunk);
    else if (sameLines(theirChunk, baseChunk) || sameLines(ourChunk, theirChunk)) {
      out.push(...ourChunk);
    } else if (baseChunk.length === 0) {
      // Both only added lines at the same spot (typically both appended to the end): nothing
      // of either is replaced, so both are kept, theirs first (it was on disk first). Their
      // last line may be the file's last without a newline; it gets one, or it and our first
      // line would run together into a line neither side wrote.
      out.push(...terminated(theirChunk, lineEnding(theirs, ours)), ...ourChunk);
    } else {
      // Both changed this stretch: still clean when their changes touch different lines
      // (neighbouring lines included: in a note, lines are separate list items and paragraphs).
      const combined = combineDisjoint(baseChunk, ourChunk, theirChunk);
      if (combined === null) {
        const line = b + 1;
        return {
          clean: false,
          reason: `both versions changed the text at line ${line} of the version read`,
        };
      }
      out.push(...combined);
    }
    if (atEnd) break;
    out.push(baseLines[sync] as string);
    b = sync + 1;
    o = oEnd + 1;
    t = tEnd + 1;
  }
  return { clean: true, text: joinLines(out, lineEnding(theirs, ours)) };
}

/**
 * The merged lines as text. Only the file's last line may lack a line ending: a side's last
 * line without one that the merge placed before other lines gets one, or the two would run
 * together into a line neither side wrote.
 */
function joinLines(lines: readonly string[], ending: string): string {
  let text = '';
  lines.forEach((line, index) => {
    text += index < lines.length - 1 && !line.endsWith('\n') ? line + ending : line;
  });
  return text;
}

/** A change of one side: base lines `[start, end)` replaced by `lines` (start = end: an insertion). */
interface Hunk {
  readonly start: number;
  readonly end: number;
  readonly lines: readonly string[];
  readonly side: 'ours' | 'theirs';
}

/**
 * Applies both sides' changes of a stretch of base lines when no base line is changed by both
 * and no insertion falls inside the other side's change; null otherwise. Insertions at one spot
 * are both kept, theirs first; an insertion next to the other side's change goes beside it.
 */
function combineDisjoint(
  base: readonly string[],
  ours: readonly string[],
  theirs: readonly string[],
): string[] | null {
  const ourMatch = matchLines(base, ours);
  const theirMatch = matchLines(base, theirs);
  if (ourMatch === null || theirMatch === null) return null;
  // A side's deletion of lines the other side's change also takes away is already done by that
  // change: nothing of the deleting side's is lost (it wrote nothing there), so the other
  // change stands alone (one device removed a line, another removed it with the next and wrote
  // in their place). Two deletions that overlap delete both stretches.
  const theirAll = hunks(base.length, theirs, theirMatch, 'theirs');
  const ourHunks = withoutDone(hunks(base.length, ours, ourMatch, 'ours'), theirAll);
  const theirHunks = withoutDone(theirAll, ourHunks);
  for (const mine of ourHunks) {
    for (const other of theirHunks) {
      const bothDelete = mine.lines.length === 0 && other.lines.length === 0;
      if (mine.start < other.end && other.start < mine.end && !bothDelete) return null;
    }
  }
  const all = [...theirHunks, ...ourHunks].sort(
    (x, y) =>
      x.start - y.start || x.end - y.end || (x.side === y.side ? 0 : x.side === 'theirs' ? -1 : 1),
  );
  const out: string[] = [];
  let position = 0;
  for (const hunk of all) {
    out.push(...base.slice(position, hunk.start), ...hunk.lines);
    position = Math.max(position, hunk.end);
  }
  out.push(...base.slice(position));
  return out;
}

/**
 * `side`'s hunks less its pure deletions that lie inside a change of `other`'s (a hunk is a
 * maximal run, so every line of the deletion is gone in `other` too): that change is the whole
 * of it there. Deletions both sides made alike are dropped from the first side only, so they
 * are applied once.
 */
function withoutDone(side: readonly Hunk[], other: readonly Hunk[]): Hunk[] {
  return side.filter(
    (hunk) =>
      !(
        hunk.lines.length === 0 &&
        hunk.end > hunk.start &&
        other.some((o) => o.end > o.start && o.start <= hunk.start && hunk.end <= o.end)
      ),
  );
}

/** The changes that turn `base` (of `baseLength` lines) into `other`, from their line matching. */
function hunks(
  baseLength: number,
  other: readonly string[],
  match: readonly number[],
  side: Hunk['side'],
): Hunk[] {
  const found: Hunk[] = [];
  let previousBase = -1;
  let previousOther = -1;
  for (let i = 0; i <= baseLength; i++) {
    const at = i === baseLength ? other.length : (match[i] ?? -1);
    if (at < 0) continue;
    if (i > previousBase + 1 || at > previousOther + 1) {
      found.push({
        start: previousBase + 1,
        end: i,
        lines: other.slice(previousOther + 1, at),
        side,
      });
    }
    previousBase = i;
    previousOther = at;
  }
  return found;
}

/**
 * Whether `whole` holds every line of `part` in the same order (`whole` is `part` with lines
 * inserted): merging `whole` as an edit of `part` can only add lines, never remove any.
 */
export function insertsInto(part: string, whole: string): boolean {
  const partLines = splitKeepingEnds(part);
  const wholeLines = splitKeepingEnds(whole);
  let at = 0;
  for (const line of wholeLines) {
    if (at < partLines.length && line === partLines[at]) at++;
  }
  return at === partLines.length;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes (a byte-order mark kept), or null for bytes that are not text. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Lines with their terminators (`\n` or `\r\n`); the last may have none. */
function splitKeepingEnds(text: string): string[] {
  if (text === '') return [];
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/** The chunk with a line ending after its last line if it had none. */
function terminated(chunk: readonly string[], ending: string): readonly string[] {
  const last = chunk[chunk.length - 1];
  if (last === undefined || last.endsWith('\n')) return chunk;
  return [...chunk.slice(0, -1), last + ending];
}

/** The line ending the texts use (the first one found), `\n` when they have none. */
function lineEnding(...texts: readonly string[]): string {
  for (const text of texts) {
    const match = /\r?\n/.exec(text);
    if (match) return match[0];
  }
  return '\n';
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}

/**
 * For each base line, the index of the line it matches in `other` along a longest common
 * subsequence, or -1. Common leading and trailing lines are matched directly, so the table
 * covers only the changed middle. Null when even that middle is too big.
 */
export function matchLines(base: readonly string[], other: readonly string[]): number[] | null {
  const match = new Array<number>(base.length).fill(-1);
  let start = 0;
  while (start < base.length && start < other.length && base[start] === other[start]) {
    match[start] = start;
    start++;
  }
  let baseEnd = base.length;
  let otherEnd = other.length;
  while (baseEnd > start && otherEnd > start && base[baseEnd - 1] === other[otherEnd - 1]) {
    baseEnd--;
    otherEnd--;
    match[baseEnd] = otherEnd;
  }
  const rows = baseEnd - start;
  const cols = otherEnd - start;
  if (rows === 0 || cols === 0) return match;
  if (rows * cols > MAX_TABLE_CELLS) return null;
  // lengths[i][j] = LCS length of base[start+i..baseEnd) and other[start+j..otherEnd).
  const width = cols + 1;
  const lengths = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = cols - 1; j >= 0; j--) {
      lengths[i * width + j] =
        base[start + i] === other[start + j]
          ? (lengths[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < rows && j < cols) {
    if (base[start + i] === other[start + j]) {
      match[start + i] = start + j;
      i++;
      j++;
    } else if ((lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number)) {
      i++;
    } else {
      j++;
    }
  }
  return match;
}
