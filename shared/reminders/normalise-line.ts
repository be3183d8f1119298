/**
 * Normalisation of one line (docs/vault-format.md): natural language inside `@remind(...)` becomes the
 * absolute form (`tomorrow 5pm` → `2026-11-24 17:00`), and a line with a schedulable reminder
 * and no block id gets ` ^r-xxxx` appended. The plugin runs this when the cursor leaves a line
 * or on a command, and applies the edits as one undoable transaction.
 *
 * Only Cairn's own token is touched, and only the first one on the line; foreign syntaxes are
 * never rewritten. A token that cannot be resolved (invalid, unbalanced, unreadable or past
 * natural language) leaves the line unchanged and says why in `problem`: the user's words stay
 * as typed. Never throws.
 */
import { findBlockId } from './block-id';
import { resolveNaturalTime } from './natural-time';
import { classifyRemindText } from './remind-value';
import { findRemindTokensInLine } from './remind-token';

export interface NormaliseLineOptions {
  /** The instant natural language is relative to (epoch ms). */
  now: number;
  /** The vault's zone. */
  zone: string;
  /** Returns a fresh block id (`^r-xxxx`, the caret optional), e.g. wrapping `newBlockId`. */
  newBlockId: () => string;
  /** Time of day for date-only phrases, `HH:mm`; default `09:00`. */
  defaultTime?: string;
}

/** A replacement of `[from, to)` (line-relative offsets) by `insert`, as CodeMirror takes it. */
export interface LineEdit {
  from: number;
  to: number;
  insert: string;
}

export interface NormalisedLine {
  /** The line after the edits (the input itself when there are none). */
  line: string;
  /** Non-overlapping, in ascending order; empty when nothing changes. */
  edits: LineEdit[];
  /** Why the token was left as it is, when it could not be normalised. */
  problem?: string;
}

export function normaliseRemindLine(line: string, options: NormaliseLineOptions): NormalisedLine {
  if (typeof line !== 'string') return { line: '', edits: [], problem: 'not a line of text' };
  const [token] = findRemindTokensInLine(line);
  if (token === undefined) return { line, edits: [] };
  if (!token.closed) {
    return {
      line,
      edits: [],
      problem: `unbalanced parenthesis: "@remind(" at column ${token.innerFrom} is not closed`,
    };
  }
  const value = classifyRemindText(token.inner, options.zone);
  if (value.kind === 'invalid') return { line, edits: [], problem: value.reason };

  const edits: LineEdit[] = [];
  if (value.kind === 'natural') {
    const resolved = resolveNaturalTime(value.text, {
      now: options.now,
      zone: options.zone,
      ...(options.defaultTime === undefined ? {} : { defaultTime: options.defaultTime }),
    });
    if (!resolved.ok) return { line, edits: [], problem: resolved.message };
    edits.push({ from: token.innerFrom, to: token.innerTo, insert: resolved.text });
  }
  if (findBlockId(line) === undefined) {
    const id = options.newBlockId();
    const contentEnd = line.trimEnd().length;
    edits.push({
      from: contentEnd,
      to: line.length,
      insert: ` ${id.startsWith('^') ? id : `^${id}`}`,
    });
  }
  return { line: applyEdits(line, edits), edits };
}

/** Applies non-overlapping edits given in ascending order. */
export function applyEdits(line: string, edits: readonly LineEdit[]): string {
  let result = '';
  let kept = 0;
  for (const edit of edits) {
    result += line.slice(kept, edit.from) + edit.insert;
    kept = edit.to;
  }
  return result + line.slice(kept);
}
