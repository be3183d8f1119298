/**
 * Finding `@remind(...)` tokens, with offsets for CodeMirror decorations and precise errors.
 *
 * A token starts at `@remind(` (lower case, not glued to a preceding word or e-mail address:
 * `me@remind(` is not a token) and ends at the `)` that balances its `(`, on the same line;
 * nested parentheses are kept in the inner text (`@remind(tomorrow (after lunch))`), and the
 * inner text is then classified (see remind-value.ts). A token whose `(` is never balanced on
 * its line is returned with `closed: false`, runs to the end of the line, and ends the scan of
 * that line. Tokens inside inline code spans are examples, not reminders, and are skipped; fenced
 * code blocks and front matter are whole lines, skipped by the caller (`findInlineReminders`). Offsets and columns count UTF-16 code units, as CodeMirror and JS strings do.
 * Scanning is linear in the input and never throws.
 */
import { inlineCodeSpans, overlapsSpan } from '../markdown/code-regions';

export const REMIND_OPEN = '@remind(';

/** A token within one line; offsets are relative to the line's start. */
export interface LineRemindToken {
  /** Offset of `@`. */
  from: number;
  /** Offset just past the closing `)`, or the line's length when unclosed. */
  to: number;
  /** Offsets of the text between the parentheses. */
  innerFrom: number;
  innerTo: number;
  /** The text between the parentheses, untrimmed. */
  inner: string;
  closed: boolean;
}

/** The lines of a document (split on `\n`, without a trailing `\r`) with their start offsets. */
export interface DocumentLine {
  text: string;
  offset: number;
}

export function documentLines(text: string): DocumentLine[] {
  const lines: DocumentLine[] = [];
  let offset = 0;
  for (const raw of text.split('\n')) {
    lines.push({ text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, offset });
    offset += raw.length + 1;
  }
  return lines;
}

/** `@remind(...)` tokens in one line, outside inline code spans. */
export function findRemindTokensInLine(line: string): LineRemindToken[] {
  if (typeof line !== 'string' || !line.includes(REMIND_OPEN)) return [];
  const codeSpans = line.includes('`') ? inlineCodeSpans(line) : [];
  const tokens: LineRemindToken[] = [];
  let search = 0;
  while (search < line.length) {
    const from = line.indexOf(REMIND_OPEN, search);
    if (from < 0) break;
    const innerFrom = from + REMIND_OPEN.length;
    if (from > 0 && /[\p{L}\p{N}_.+-]/u.test(line[from - 1]!)) {
      search = innerFrom;
      continue;
    }
    const close = balancingParenthesis(line, innerFrom);
    const closed = close >= 0;
    const innerTo = closed ? close : line.length;
    const to = closed ? close + 1 : line.length;
    if (!overlapsSpan(codeSpans, from, to)) {
      tokens.push({ from, to, innerFrom, innerTo, inner: line.slice(innerFrom, innerTo), closed });
      if (!closed) break;
    } else if (!closed) {
      // The unclosed token is inside code; a later token may still be real.
      search = innerFrom;
      continue;
    }
    search = to;
  }
  return tokens;
}

/** Index of the `)` closing a `(` just before `from`, or -1 when the line ends first. */
function balancingParenthesis(line: string, from: number): number {
  let depth = 1;
  for (let index = from; index < line.length; index++) {
    const char = line.charCodeAt(index);
    if (char === 40 /* ( */) depth++;
    else if (char === 41 /* ) */ && --depth === 0) return index;
  }
  return -1;
}
