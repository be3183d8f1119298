/**
 * Inline reminders of one Markdown document: Cairn's `@remind(...)` lines and, read-only, the
 * Reminder plugin's `(@2026-11-23 17:00)` and its Tasks-format `⏰ 2026-11-23 10:00`.
 *
 * Rules (docs/vault-format.md):
 * - one reminder per line; Cairn's token wins over foreign ones on the same line, and a second
 *   `@remind` on a line is reported and ignored;
 * - identity is the block id (`r-7k2p`), else `path + line text`, so editing a line without a
 *   block id makes it a new reminder; a block id used twice in the document identifies only its
 *   first line, later ones fall back to their text and are reported;
 * - a checked task (`- [x]`, and Tasks' cancelled `- [-]`) never fires, but is still listed with
 *   `taskState: 'checked'` so callers can show it as done;
 * - natural-language tokens are not reminders yet: they are problems of kind `unresolved`, which
 *   the companion lists for attention and never fires (it never guesses);
 * - tokens in front matter, fenced code blocks and inline code spans are ignored.
 * Never throws; every problem names its line and column.
 */
import { isKnownZone } from './known-zone';
import { findBlockId } from './block-id';
import { plainInline } from '../markdown/plain-inline';
import {
  bodyStartIndex,
  fencedCodeLines,
  inlineCodeSpans,
  overlapsSpan,
} from '../markdown/code-regions';
import { findForeignTokens } from './foreign-syntax';

import { classifyRemindText } from './remind-value';
import type { ReminderSchedule, TaskState } from './reminder-schedule';
import { REMIND_OPEN, documentLines, findRemindTokensInLine } from './remind-token';

export type InlineSyntax = 'cairn' | 'reminder-plugin' | 'tasks';

export interface InlineSyntaxes {
  cairn: boolean;
  reminderPlugin: boolean;
  tasks: boolean;
}

export const ALL_INLINE_SYNTAXES: InlineSyntaxes = {
  cairn: true,
  reminderPlugin: true,
  tasks: true,
};

export interface FindInlineRemindersOptions {
  /** Vault-relative path of the document; part of the identity of lines without a block id. */
  path: string;
  /** The vault's zone: tokens without a zone are read in it. */
  defaultZone: string;
  /** Which syntaxes are read; all by default. */
  syntaxes?: Partial<InlineSyntaxes>;
  /** 1-based first line of the body; by default a leading front-matter block is skipped. */
  bodyStartLine?: number;
  /** Time of day for date-only foreign tokens (`(@2026-11-23)`), `HH:mm`; default `09:00`. */
  defaultTime?: string;
}

export interface InlineReminder {
  /** The block id when the line has a usable one, else `path::line text`. */
  id: string;
  identity: { kind: 'block'; blockId: string } | { kind: 'line'; path: string; text: string };
  path: string;
  /** 1-based line. */
  line: number;
  /** The line without list marker, checkbox, reminder token and block id. */
  title: string;
  /** Without the caret, e.g. `r-7k2p`, when the line ends with one (even a duplicate). */
  blockId?: string;
  taskState: TaskState;
  schedule: ReminderSchedule;
  syntax: InlineSyntax;
  /** Absolute document offsets of the token, for decorations. */
  from: number;
  to: number;
  /** Absolute offset of the line's start. */
  lineOffset: number;
}

export type ReminderProblemKind =
  'invalid' | 'unbalanced' | 'unresolved' | 'extra-token' | 'duplicate-block-id';

export interface ReminderProblem {
  kind: ReminderProblemKind;
  path: string;
  line: number;
  /** 1-based column (UTF-16 code units) where the problem starts. */
  column: number;
  /** Absolute document offsets of what the problem is about. */
  from: number;
  to: number;
  /** The token as written, e.g. `@remind(2026-13-01)` (at most 500 characters). */
  token: string;
  /** What is wrong, without position: `month 13 does not exist`. */
  reason: string;
  /** Full message: ``line 12: `@remind(2026-13-01)`: month 13 does not exist``. */
  message: string;
  /**
   * For `unresolved` and an invalid `@remind(...)`: the line's title and block id, so the
   * problem can be listed by name.
   */
  title?: string;
  blockId?: string;
  /** For `invalid`: `zone` when the time zone is what is wrong. */
  field?: 'zone';
}

export interface InlineRemindersResult {
  reminders: InlineReminder[];
  problems: ReminderProblem[];
}

const TASK_LINE = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+)\[(.)\](?=\s|$)/;
const LIST_MARKER = /^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+)?(?:\[.\]\s+)?/;
/** Longest token kept in a problem's `token` (an unclosed one runs to the end of the line). */
const MAX_TOKEN_FIELD_LENGTH = 500;
/** Longest token quoted in a message; the rest is elided. */
const QUOTE_LIMIT = 80;

export function findInlineReminders(
  text: string,
  options: FindInlineRemindersOptions,
): InlineRemindersResult {
  const result: InlineRemindersResult = { reminders: [], problems: [] };
  if (typeof text !== 'string' || text === '') return result;
  const syntaxes = { ...ALL_INLINE_SYNTAXES, ...options.syntaxes };
  const defaultTime = readDefaultTime(options.defaultTime);
  const lines = documentLines(text);
  const texts = lines.map((line) => line.text);
  const inCode = fencedCodeLines(texts);
  const firstBody =
    options.bodyStartLine === undefined || !Number.isFinite(options.bodyStartLine)
      ? bodyStartIndex(texts)
      : Math.max(0, Math.floor(options.bodyStartLine) - 1);
  const blockIdLines = new Map<string, number>();
  const path = options.path;

  for (let index = firstBody; index < lines.length; index++) {
    const { text: lineText, offset } = lines[index]!;
    if (inCode[index]) continue;
    const hasCairn = syntaxes.cairn && lineText.includes(REMIND_OPEN);
    const mayHaveForeign =
      (syntaxes.reminderPlugin && lineText.includes('(@')) ||
      (syntaxes.tasks && lineText.includes('⏰'));
    if (!hasCairn && !mayHaveForeign) continue;
    const lineNumber = index + 1;
    const problem = (
      kind: ReminderProblemKind,
      from: number,
      to: number,
      reason: string,
      extra: Partial<ReminderProblem> = {},
      withColumn = false,
    ): ReminderProblem => {
      const token = lineText.slice(from, Math.min(to, from + MAX_TOKEN_FIELD_LENGTH));
      const where = withColumn ? `line ${lineNumber}, column ${from + 1}` : `line ${lineNumber}`;
      return {
        kind,
        path,
        line: lineNumber,
        column: from + 1,
        from: offset + from,
        to: offset + to,
        token,
        reason,
        message: `${where}: \`${quote(token)}\`: ${reason}`,
        ...extra,
      };
    };

    const lineFacts = describeLine(lineText);
    const cairnTokens = hasCairn ? findRemindTokensInLine(lineText) : [];
    let chosen:
      { syntax: InlineSyntax; from: number; to: number; schedule: ReminderSchedule } | undefined;
    let unresolved: { from: number; to: number; text: string } | undefined;

    const [first, ...extra] = cairnTokens;
    if (first !== undefined) {
      for (const token of extra) {
        result.problems.push(
          problem(
            'extra-token',
            token.from,
            token.to,
            'only one @remind per line; this one is ignored',
          ),
        );
      }
      if (!first.closed) {
        const open = first.innerFrom - 1;
        const reason = 'unbalanced parenthesis: "@remind(" is not closed on this line';
        const item = problem('unbalanced', first.from, first.to, reason);
        item.column = open + 1;
        item.message = `line ${lineNumber}, column ${open + 1}: ${reason}`;
        result.problems.push(item);
        continue;
      }
      const value = isKnownZone(options.defaultZone)
        ? classifyRemindText(first.inner, options.defaultZone)
        : ({
            kind: 'invalid',
            reason: `unknown default time zone "${options.defaultZone}"`,
            field: 'zone',
          } as const);
      if (value.kind === 'invalid') {
        // Named like a reminder, so the companion's attention list can say which line it is.
        const named = {
          title: titleOf(lineText, cairnTokens, lineFacts.blockId, path),
          ...(lineFacts.blockId ? { blockId: lineFacts.blockId.id } : {}),
          ...(value.field === undefined ? {} : { field: value.field }),
        };
        result.problems.push(problem('invalid', first.from, first.to, value.reason, named));
        continue;
      }
      if (value.kind === 'natural') {
        unresolved = { from: first.from, to: first.to, text: value.text };
      } else {
        const schedule: ReminderSchedule =
          value.kind === 'once'
            ? { kind: 'once', start: value.start, zone: value.zone }
            : { kind: 'recurring', rrule: value.rrule, start: value.start, zone: value.zone };
        chosen = { syntax: 'cairn', from: first.from, to: first.to, schedule };
      }
    } else if (mayHaveForeign) {
      const codeSpans = lineText.includes('`') ? inlineCodeSpans(lineText) : [];
      const foreign = findForeignTokens(lineText, syntaxes, defaultTime).filter(
        (token) => !overlapsSpan(codeSpans, token.from, token.to),
      );
      const [token] = foreign;
      if (token === undefined) continue;
      if (!token.result.ok) {
        result.problems.push(problem('invalid', token.from, token.to, token.result.reason));
        continue;
      }
      if (!isKnownZone(options.defaultZone)) {
        const reason = `unknown default time zone "${options.defaultZone}"`;
        result.problems.push(problem('invalid', token.from, token.to, reason, { field: 'zone' }));
        continue;
      }
      chosen = {
        syntax: token.syntax,
        from: token.from,
        to: token.to,
        schedule: { kind: 'once', start: token.result.start, zone: options.defaultZone },
      };
    }

    const blockId = lineFacts.blockId;
    const tokenRange = chosen ?? unresolved;
    if (tokenRange === undefined) continue;
    const title = titleOf(lineText, [tokenRange, ...cairnTokens], blockId, path);

    if (unresolved !== undefined) {
      if (lineFacts.taskState !== 'checked') {
        result.problems.push(
          problem(
            'unresolved',
            unresolved.from,
            unresolved.to,
            `unresolved natural-language time: "${unresolved.text}" (open the note in Obsidian to turn it into a date)`,
            { title, ...(blockId ? { blockId: blockId.id } : {}) },
          ),
        );
      }
      continue;
    }
    if (chosen === undefined) continue;

    let identity: InlineReminder['identity'];
    if (blockId !== undefined && !blockIdLines.has(blockId.id)) {
      blockIdLines.set(blockId.id, lineNumber);
      identity = { kind: 'block', blockId: blockId.id };
    } else {
      if (blockId !== undefined) {
        result.problems.push(
          problem(
            'duplicate-block-id',
            blockId.from,
            blockId.to,
            `block id ^${blockId.id} is already used on line ${blockIdLines.get(blockId.id)}; this reminder is identified by its text until the id is changed`,
          ),
        );
      }
      identity = { kind: 'line', path, text: lineText.trim() };
    }
    result.reminders.push({
      id: identity.kind === 'block' ? identity.blockId : `${path}::${identity.text}`,
      identity,
      path,
      line: lineNumber,
      title,
      ...(blockId ? { blockId: blockId.id } : {}),
      taskState: lineFacts.taskState,
      schedule: chosen.schedule,
      syntax: chosen.syntax,
      from: offset + chosen.from,
      to: offset + chosen.to,
      lineOffset: offset,
    });
  }
  return result;
}

/** The checkbox state of a task line: `[ ]` and other marks open, `[x]`/`[X]`/`[-]` checked. */
export function taskStateOf(line: string): TaskState {
  const match = TASK_LINE.exec(line);
  if (!match) return 'none';
  const mark = match[2]!;
  return mark === 'x' || mark === 'X' || mark === '-' ? 'checked' : 'open';
}

function describeLine(line: string) {
  return { taskState: taskStateOf(line), blockId: findBlockId(line) };
}

/**
 * The line's text without list marker, checkbox, the given token ranges and the block id, as a
 * person reads it (links as their labels, no emphasis markers: it is shown on the phone and in
 * calendars, which do not render Markdown).
 */
export function titleOf(
  line: string,
  ranges: ReadonlyArray<{ from: number; to: number }>,
  blockId: { from: number; to: number } | undefined,
  path: string,
): string {
  const sorted = [...ranges, ...(blockId ? [blockId] : [])].sort((a, b) => a.from - b.from);
  let text = '';
  let kept = 0;
  for (const range of sorted) {
    if (range.from > kept) text += line.slice(kept, range.from);
    text += ' ';
    kept = Math.max(kept, range.to);
  }
  text += line.slice(kept);
  const title = plainInline(text.replace(LIST_MARKER, '')).replace(/\s+/g, ' ').trim();
  if (title !== '') return title;
  // A line holding only the token: the note's name says what it is about.
  const name = path.split('/').pop() ?? path;
  return name.replace(/\.md$/i, '');
}

function readDefaultTime(text: string | undefined): { hour: number; minute: number } {
  const match = /^(\d{2}):(\d{2})$/.exec(text ?? '09:00');
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  if (!match || hour > 23 || minute > 59) {
    throw new RangeError(`defaultTime "${text}" is not a time of day (HH:mm, 00:00 to 23:59)`);
  }
  return { hour, minute };
}

function quote(token: string): string {
  return token.length <= QUOTE_LIMIT ? token : `${token.slice(0, QUOTE_LIMIT - 1)}…`;
}
