/**
 * Normalisation of a whole note (the "normalise reminders" command, or the lines a user just
 * left): every line with a Cairn `@remind` token outside front matter and code is passed
 * through `normaliseRemindLine`, with block ids unique within the note. Edits come back with
 * absolute offsets, ascending and non-overlapping, to apply as one undoable transaction.
 */
import { findBlockIds, newBlockId } from './block-id';
import { normaliseRemindLine } from './normalise-line';
import { documentLines, findRemindTokens } from './remind-token';

export interface NormaliseDocumentOptions {
  now: number;
  /** The vault's zone. */
  zone: string;
  /** Numbers in [0, 1) for new block ids (Math.random in the plugin, seeded in tests). */
  random: () => number;
  /** Time of day for date-only phrases, `HH:mm`; default `09:00`. */
  defaultTime?: string;
  /** Only these 1-based lines (e.g. the ones the cursor left); all lines when absent. */
  lines?: ReadonlySet<number>;
  /** 1-based first line of the body; by default a leading front-matter block is skipped. */
  bodyStartLine?: number;
}

export interface DocumentEdit {
  /** Absolute offsets in the document. */
  from: number;
  to: number;
  insert: string;
}

export interface NormalisedDocument {
  /** The document after the edits (the input itself when there are none). */
  text: string;
  edits: DocumentEdit[];
  /** Tokens left as typed, with why: ``line 4: `tomorrow`: "today" is in the past …``. */
  problems: Array<{ line: number; message: string }>;
}

export function normaliseRemindDocument(
  text: string,
  options: NormaliseDocumentOptions,
): NormalisedDocument {
  const result: NormalisedDocument = { text, edits: [], problems: [] };
  if (typeof text !== 'string') return { text: '', edits: [], problems: [] };
  const tokens = findRemindTokens(
    text,
    options.bodyStartLine === undefined ? {} : { bodyStartLine: options.bodyStartLine },
  );
  if (tokens.length === 0) return result;
  const lines = documentLines(text);
  const taken = findBlockIds(text);
  const nextBlockId = () => {
    const id = newBlockId(options.random, taken);
    taken.add(id.slice(1));
    return id;
  };
  const done = new Set<number>();
  for (const token of tokens) {
    if (done.has(token.line) || (options.lines !== undefined && !options.lines.has(token.line))) {
      continue;
    }
    done.add(token.line);
    const { text: lineText, offset } = lines[token.line - 1]!;
    const normalised = normaliseRemindLine(lineText, {
      now: options.now,
      zone: options.zone,
      newBlockId: nextBlockId,
      ...(options.defaultTime === undefined ? {} : { defaultTime: options.defaultTime }),
    });
    if (normalised.problem !== undefined) {
      result.problems.push({
        line: token.line,
        message: `line ${token.line}: ${normalised.problem}`,
      });
    }
    for (const edit of normalised.edits) {
      result.edits.push({ from: offset + edit.from, to: offset + edit.to, insert: edit.insert });
    }
  }
  if (result.edits.length === 0) return result;
  let rewritten = '';
  let kept = 0;
  for (const edit of result.edits) {
    rewritten += text.slice(kept, edit.from) + edit.insert;
    kept = edit.to;
  }
  result.text = rewritten + text.slice(kept);
  return result;
}
