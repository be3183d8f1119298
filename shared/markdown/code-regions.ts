/**
 * Where Markdown shows text literally: fenced code blocks and inline code spans. A reminder
 * written there is an example, not a reminder (`@remind(...)` in a how-to note must not fire),
 * and a `#tag` there is not a tag. One reading for both (reminders and prose-lines.ts).
 *
 * Deliberately smaller than CommonMark:
 * - fences are ``` or ~~~ (3 or more) indented by at most 3 spaces, closed by a run of the same
 *   character at least as long; an unclosed fence runs to the end of the document, as in
 *   CommonMark;
 * - indented code blocks (4 spaces) are NOT treated as code: in notes, indentation nearly always
 *   means a nested list item, and `    - [ ] pay rent @remind(...)` must work;
 * - inline code spans are matched within one line (a span that CommonMark would continue onto
 *   the next line of the same paragraph is taken as literal backticks).
 */

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * Line-by-line fence tracking, for callers that walk the lines themselves (prose-lines.ts also
 * tracks `%%` comments, inside which a fence opens nothing).
 */
export class FenceTracker {
  private fence: { char: string; length: number } | undefined;

  /**
   * Feeds the next line (a trailing `\r` ignored); true when it belongs to a fenced code block,
   * fence lines included. With `mayOpen` false the line cannot open a fence.
   */
  step(rawLine: string, mayOpen = true): boolean {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (this.fence === undefined) {
      if (!mayOpen) return false;
      const open = FENCE_OPEN.exec(line);
      // A backtick fence's info string may not contain backticks (CommonMark 4.5).
      if (!open || (open[1]!.startsWith('`') && open[2]!.includes('`'))) return false;
      this.fence = { char: open[1]![0]!, length: open[1]!.length };
      return true;
    }
    const close = FENCE_CLOSE.exec(line);
    if (close && close[1]![0] === this.fence.char && close[1]!.length >= this.fence.length) {
      this.fence = undefined;
    }
    return true;
  }
}

/**
 * For each line (split on `\n`, a trailing `\r` ignored), whether it is inside a fenced code
 * block, fence lines included.
 */
export function fencedCodeLines(lines: readonly string[]): boolean[] {
  const tracker = new FenceTracker();
  return lines.map((line) => tracker.step(line ?? ''));
}

/** `[from, to)` ranges (line-relative) of inline code spans, backticks included. */
export function inlineCodeSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let index = 0;
  while (index < line.length) {
    const open = line.indexOf('`', index);
    if (open < 0) break;
    let openEnd = open;
    while (line[openEnd] === '`') openEnd++;
    const runLength = openEnd - open;
    const close = findBacktickRun(line, openEnd, runLength);
    if (close < 0) {
      // No closing run of the same length: these backticks are literal text.
      index = openEnd;
      continue;
    }
    spans.push([open, close + runLength]);
    index = close + runLength;
  }
  return spans;
}

/** The line with each inline code span (backticks included) replaced by spaces, columns kept. */
export function blankInlineCode(line: string): string {
  if (!line.includes('`')) return line;
  let output = '';
  let position = 0;
  for (const [from, to] of inlineCodeSpans(line)) {
    output += line.slice(position, from) + ' '.repeat(to - from);
    position = to;
  }
  return output + line.slice(position);
}

function findBacktickRun(line: string, from: number, length: number): number {
  let index = from;
  while (index < line.length) {
    const start = line.indexOf('`', index);
    if (start < 0) return -1;
    let end = start;
    while (line[end] === '`') end++;
    if (end - start === length) return start;
    index = end;
  }
  return -1;
}

/** True when `[from, to)` overlaps any of `spans`. */
export function overlapsSpan(spans: ReadonlyArray<[number, number]>, from: number, to: number) {
  return spans.some(([start, end]) => from < end && to > start);
}

/**
 * 0-based index of the first line after a leading YAML front-matter block (`---` on the first
 * line, closed by `---` or `...`), or 0 when there is none or it is never closed. Reminders in
 * front matter are read as reminder-note fields, not as `@remind` tokens.
 */
export function bodyStartIndex(lines: readonly string[]): number {
  if ((lines[0] ?? '').replace(/\r$/, '').trimEnd() !== '---') return 0;
  for (let index = 1; index < lines.length; index++) {
    const line = (lines[index] ?? '').replace(/\r$/, '').trimEnd();
    if (line === '---' || line === '...') return index + 1;
  }
  return 0;
}
