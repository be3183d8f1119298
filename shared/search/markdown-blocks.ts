import { LineIndex } from './text-ranges';

/*
 * The block structure of a Markdown body, as far as chunking needs it: headings (ATX and
 * setext), fenced code and `$$` math (atomic, and headings inside them are not headings),
 * GFM tables (atomic), and paragraphs (runs of non-blank lines, lists included). Block quotes,
 * callouts and list items are plain text here: a `> ## x` inside a callout is not a section.
 */

export type BlockKind = 'heading' | 'code' | 'table' | 'text';

export interface Block {
  kind: BlockKind;
  /** Character offsets `[start, end)` into the normalised body; `end` excludes the final newline. */
  start: number;
  end: number;
  /** 0-based first and last line of the body, inclusive. */
  firstLine: number;
  lastLine: number;
  /** For headings: 1–6 and the heading text without markers. */
  level?: number;
  heading?: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_H1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_H2 = /^ {0,3}-+[ \t]*$/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** A paragraph that opens a list item or quote cannot be a setext heading's text. */
const LIST_OR_QUOTE = /^ {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>)/;

/** `\r\n` and lone `\r` become `\n`; offsets and lines below refer to the normalised text. */
export function normaliseNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Splits a normalised body into blocks, in order. Blank lines belong to no block. */
export function scanBlocks(body: string, lines: LineIndex = new LineIndex(body)): Block[] {
  const text = body.split('\n');
  const blocks: Block[] = [];
  const block = (kind: BlockKind, firstLine: number, lastLine: number): Block => ({
    kind,
    start: lines.startOf(firstLine),
    end: lines.startOf(lastLine) + text[lastLine]!.length,
    firstLine,
    lastLine,
  });

  let i = 0;
  while (i < text.length) {
    const line = text[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }

    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[1]!.startsWith('`') && fence[2]!.includes('`'))) {
      const last = closingFence(text, i, fence[1]!);
      blocks.push(block('code', i, last));
      i = last + 1;
      continue;
    }

    const mathEnd = mathBlockEnd(text, i);
    if (mathEnd !== undefined) {
      blocks.push(block('code', i, mathEnd));
      i = mathEnd + 1;
      continue;
    }

    const atx = ATX_HEADING.exec(line);
    if (atx) {
      blocks.push({
        ...block('heading', i, i),
        level: atx[1]!.length,
        heading: (atx[2] ?? '').trim(),
      });
      i++;
      continue;
    }

    if (startsTable(text, i)) {
      let last = i + 1;
      while (last + 1 < text.length && !isBlank(text[last + 1]!) && text[last + 1]!.includes('|')) {
        last++;
      }
      blocks.push(block('table', i, last));
      i = last + 1;
      continue;
    }

    // A paragraph: runs until a blank line or a line that starts another kind of block.
    let last = i;
    let setext: number | undefined;
    while (last + 1 < text.length) {
      const next = text[last + 1]!;
      if (isBlank(next) || startsOtherBlock(text, last + 1)) break;
      if (!LIST_OR_QUOTE.test(line) && (SETEXT_H1.test(next) || SETEXT_H2.test(next))) {
        setext = SETEXT_H1.test(next) ? 1 : 2;
        last++;
        break;
      }
      last++;
    }
    if (setext !== undefined) {
      const heading = text
        .slice(i, last)
        .map((part) => part.trim())
        .join(' ');
      blocks.push({ ...block('heading', i, last), level: setext, heading });
    } else {
      blocks.push(block('text', i, last));
    }
    i = last + 1;
  }
  return blocks;
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** The line that closes a fence opened at `open`, or the last line (CommonMark: unclosed runs to the end). */
function closingFence(text: string[], open: number, marker: string): number {
  const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
  for (let j = open + 1; j < text.length; j++) {
    if (close.test(text[j]!)) return j;
  }
  return text.length - 1;
}

/** Obsidian's display math: `$$` on its own line up to the next line containing `$$`. Unclosed is text. */
function mathBlockEnd(text: string[], open: number): number | undefined {
  const line = text[open]!.trim();
  if (!line.startsWith('$$')) return undefined;
  if (line.length >= 4 && line.endsWith('$$')) return open;
  for (let j = open + 1; j < text.length; j++) {
    if (text[j]!.includes('$$')) return j;
  }
  return undefined;
}

function startsTable(text: string[], i: number): boolean {
  const next = text[i + 1];
  return (
    next !== undefined && text[i]!.includes('|') && next.includes('|') && TABLE_DELIMITER.test(next)
  );
}

function startsOtherBlock(text: string[], i: number): boolean {
  const line = text[i]!;
  return (
    FENCE_OPEN.test(line) ||
    ATX_HEADING.test(line) ||
    mathBlockEnd(text, i) !== undefined ||
    startsTable(text, i)
  );
}
