/**
 * The lines of a Markdown body that are prose, i.e. where Obsidian would see headings and
 * tags: fenced code blocks (``` and ~~~, up to three spaces of indent, closed by a fence of
 * the same character at least as long) and `%% … %%` comments are skipped, and inline code
 * spans are blanked out with spaces so column positions stay true.
 *
 * Not handled: four-space indented code blocks (in Obsidian vaults indentation mostly means
 * nested list items, whose tags do count), HTML blocks and math blocks.
 */

import { blankInlineCode, FenceTracker } from './code-regions';

export interface ProseLine {
  /** 0-based index of the line in the body. */
  index: number;
  /** The line with inline code spans replaced by spaces. */
  text: string;
}

export function proseLines(body: string): ProseLine[] {
  const fences = new FenceTracker();
  const result: ProseLine[] = [];
  let inComment = false;
  body.split(/\r?\n/).forEach((line, index) => {
    if (fences.step(line, !inComment)) return;
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
