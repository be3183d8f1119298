/**
 * Where a note's front matter sits in the file text, before any YAML is read.
 *
 * Obsidian's rules: the very first line is `---`; the block ends at the next line that is
 * exactly `---`. `...` does not close it (Obsidian renders such a file as body text), and a
 * first line like `---json` or `---coffee` is not a fence at all. An opening fence that is
 * never closed is body text, so the file has no front matter. We accept trailing spaces and
 * tabs after either fence (invisible, and common after copy-paste) and a leading UTF-8 BOM.
 */

export const BOM = '\uFEFF';

export type LineEnding = '\n' | '\r\n';

export interface FrontMatterFence {
  /** `BOM` when the file starts with one, else ''. */
  bom: string;
  /** The line ending of the opening fence, used for everything written inside the block. */
  eol: LineEnding;
  /** Offset of the first YAML character (just after the opening fence's line break). */
  yamlStart: number;
  /** Offset of the closing fence line's first character: YAML is `text.slice(yamlStart, yamlEnd)`. */
  yamlEnd: number;
  /** Offset of the first body character (after the closing fence's line break, or the text's end). */
  bodyStart: number;
  /** 1-based file line of the first body line. */
  bodyStartLine: number;
}

const FENCE_LINE = /^---[ \t]*\r?$/;

/** The front-matter block of `text`, or null when the file has none (or an unclosed one). */
export function locateFrontMatter(text: string): FrontMatterFence | null {
  const bom = text.startsWith(BOM) ? BOM : '';
  const openStart = bom.length;
  if (!text.startsWith('---', openStart)) return null;
  const openBreak = text.indexOf('\n', openStart);
  if (openBreak === -1 || !FENCE_LINE.test(text.slice(openStart, openBreak))) return null;
  const eol: LineEnding = text[openBreak - 1] === '\r' ? '\r\n' : '\n';
  const yamlStart = openBreak + 1;

  let lineStart = yamlStart;
  let lineNumber = 2;
  while (lineStart <= text.length) {
    const lineBreak = text.indexOf('\n', lineStart);
    const lineEnd = lineBreak === -1 ? text.length : lineBreak;
    // Cheap first-character test keeps long bodies linear without building substrings.
    if (text.startsWith('---', lineStart) && FENCE_LINE.test(text.slice(lineStart, lineEnd))) {
      return {
        bom,
        eol,
        yamlStart,
        yamlEnd: lineStart,
        bodyStart: lineBreak === -1 ? text.length : lineBreak + 1,
        bodyStartLine: lineNumber + 1,
      };
    }
    if (lineBreak === -1) break;
    lineStart = lineBreak + 1;
    lineNumber += 1;
  }
  return null;
}

/** The line ending a file mostly uses, judged by its first line break ('\n' for one-line files). */
export function detectLineEnding(text: string): LineEnding {
  const lineBreak = text.indexOf('\n');
  return lineBreak > 0 && text[lineBreak - 1] === '\r' ? '\r\n' : '\n';
}

/** `text` (written with '\n') with every line break as `eol`. */
export function withLineEnding(text: string, eol: LineEnding): string {
  return eol === '\n' ? text : text.replace(/\n/g, eol);
}

/** 1-based line and column of `offset` in `text`. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < end;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: end - lineStart + 1 };
}
