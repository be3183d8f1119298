/**
 * The lines of a Markdown body that are prose, i.e. where Obsidian would see headings and
 * tags: fenced code blocks (``` and ~~~, up to three spaces of indent, closed by a fence of
 * the same character at least as long) and `%% … %%` comments are skipped, and inline code
 * spans are blanked out with spaces so column positions stay true.
 *
 * Not handled: four-space indented code blocks (in Obsidian vaults indentation mostly means
 * nested list items, whose tags do count), HTML blocks and math blocks.
 */

export interface ProseLine {
  /** 0-based index of the line in the body. */
  index: number;
  /** The line with inline code spans replaced by spaces. */
  text: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

export function proseLines(body: string): ProseLine[] {
  const lines = body.split(/\r?\n/);
  const result: ProseLine[] = [];
  let fence: { marker: string; length: number } | null = null;
  let inComment = false;
  lines.forEach((line, index) => {
    if (fence !== null) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (
        close?.[1] !== undefined &&
        close[1][0] === fence.marker &&
        close[1].length >= fence.length
      ) {
        fence = null;
      }
      return;
    }
    if (!inComment) {
      const open = FENCE_OPEN.exec(line);
      // A backtick fence's info string may not contain backticks (CommonMark), else it is inline code.
      if (
        open?.[1] !== undefined &&
        !(open[1][0] === '`' && line.slice(open[0].length).includes('`'))
      ) {
        fence = { marker: open[1][0] ?? '`', length: open[1].length };
        return;
      }
    }
    // Code first: `%%` inside inline code does not open a comment.
    const uncommented = stripComments(blankInlineCode(line), inComment);
    inComment = uncommented.inComment;
    result.push({ index, text: uncommented.text });
  });
  return result;
}

/** Replaces `%% … %%` comment text with spaces; a comment may run over several lines. */
function stripComments(
  line: string,
  startsInComment: boolean,
): { text: string; inComment: boolean } {
  let inComment = startsInComment;
  let output = '';
  let position = 0;
  while (position < line.length) {
    const marker = line.indexOf('%%', position);
    if (marker === -1) {
      output += inComment ? ' '.repeat(line.length - position) : line.slice(position);
      break;
    }
    output += inComment ? ' '.repeat(marker - position + 2) : line.slice(position, marker) + '  ';
    inComment = !inComment;
    position = marker + 2;
  }
  return { text: output, inComment };
}

/** Blanks `code` spans: a run of n backticks up to the next run of exactly n backticks. */
export function blankInlineCode(line: string): string {
  if (!line.includes('`')) return line;
  let output = '';
  let position = 0;
  while (position < line.length) {
    const open = line.indexOf('`', position);
    if (open === -1) {
      output += line.slice(position);
      break;
    }
    let openEnd = open;
    while (line[openEnd] === '`') openEnd += 1;
    const runLength = openEnd - open;
    const close = findBacktickRun(line, openEnd, runLength);
    if (close === -1) {
      output += line.slice(position, openEnd);
      position = openEnd;
      continue;
    }
    output += line.slice(position, open) + ' '.repeat(close + runLength - open);
    position = close + runLength;
  }
  return output;
}

function findBacktickRun(line: string, from: number, length: number): number {
  let search = from;
  while (search < line.length) {
    const start = line.indexOf('`', search);
    if (start === -1) return -1;
    let end = start;
    while (line[end] === '`') end += 1;
    if (end - start === length) return start;
    search = end;
  }
  return -1;
}
