import { findInlineReminders, formatWall, instantToWall } from '../../shared/reminders';
import type { InlineReminder } from '../../shared/reminders';
import { VaultWriteError } from '../vault/atomic-write';

/*
 * Edits of one inline reminder's line, as `TextEdit`s for `editVaultFile`: the reminder is found
 * again in the text being edited (by its id: the block id, or path + line text), so a re-applied
 * edit after a concurrent change lands on the right line or does not apply at all. Only the
 * checkbox or the `@remind(...)` token is touched; the rest of the line and file stay as they are.
 */

const OPEN_TASK = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+)\[( )\]/;
const CHECKED_TASK = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+)\[([xX-])\]/;

interface Located {
  readonly reminder: InlineReminder;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly line: string;
}

function locate(text: string, path: string, zone: string, id: string): Located {
  const found = findInlineReminders(text, { path, defaultZone: zone }).reminders.find(
    (reminder) => reminder.id === id,
  );
  if (!found) {
    throw new VaultWriteError('NOT_FOUND', `reminder ${id} is no longer in ${path}`);
  }
  const lineStart = found.lineOffset;
  const newline = text.indexOf('\n', lineStart);
  let lineEnd = newline === -1 ? text.length : newline;
  if (lineEnd > lineStart && text[lineEnd - 1] === '\r') lineEnd -= 1;
  return { reminder: found, lineStart, lineEnd, line: text.slice(lineStart, lineEnd) };
}

function replaceLine(text: string, at: Located, line: string): string {
  return text.slice(0, at.lineStart) + line + text.slice(at.lineEnd);
}

/** The line holds no checkbox: "done" cannot be written into it (a plain line is acknowledged). */
export class NotATaskLineError extends VaultWriteError {
  override name = 'NotATaskLineError';
}

/** `- [ ]` → `- [x]` on the reminder's line; a line already checked is left as it is. */
export function checkTaskEdit(path: string, zone: string, id: string) {
  return (text: string): string => {
    const at = locate(text, path, zone, id);
    if (CHECKED_TASK.test(at.line)) return text;
    if (!OPEN_TASK.test(at.line)) {
      throw new NotATaskLineError(
        'UNPROCESSABLE',
        `line ${at.reminder.line} of ${path} is not a task line`,
      );
    }
    return replaceLine(text, at, at.line.replace(OPEN_TASK, '$1[x]'));
  };
}

/** `- [x]` → `- [ ]`: the line is active again. */
export function uncheckTaskEdit(path: string, zone: string, id: string) {
  return (text: string): string => {
    const at = locate(text, path, zone, id);
    if (!CHECKED_TASK.test(at.line)) return text;
    return replaceLine(text, at, at.line.replace(CHECKED_TASK, '$1[ ]'));
  };
}

/** Removes the reminder's `@remind(...)` (and one blank before it); the line's words stay. */
export function removeTokenEdit(path: string, zone: string, id: string) {
  return (text: string): string => {
    const at = locate(text, path, zone, id);
    assertOwnSyntax(at, path, 'id');
    let from = at.reminder.from - at.lineStart;
    const to = at.reminder.to - at.lineStart;
    if (from > 0 && (at.line[from - 1] === ' ' || at.line[from - 1] === '\t')) from -= 1;
    return replaceLine(text, at, at.line.slice(0, from) + at.line.slice(to));
  };
}

function assertOwnSyntax(at: Located, path: string, field: string): void {
  if (at.reminder.syntax === 'cairn') return;
  throw new VaultWriteError(
    'UNPROCESSABLE',
    `line ${at.reminder.line} of ${path} is written for ${at.reminder.syntax === 'tasks' ? 'the Tasks plugin' : 'the Reminder plugin'}; Cairn reads that syntax but does not rewrite it`,
    field,
  );
}

/**
 * Replaces the reminder's `@remind(...)` with `@remind(<inner>)`, `inner` given the reminder and
 * the token's current inner text. Other plugins' syntaxes are
 * read, never rewritten (docs/vault-format.md). The result must read back as a reminder on that line
 * without a problem, else nothing is written and the grammar's message is the error.
 */
export function rewriteTokenEdit(
  path: string,
  zone: string,
  id: string,
  inner: (reminder: InlineReminder, written: string) => string,
  field: string,
) {
  return (text: string): string => {
    const at = locate(text, path, zone, id);
    assertOwnSyntax(at, path, field);
    const from = at.reminder.from - at.lineStart;
    const to = at.reminder.to - at.lineStart;
    // The text between `@remind(` and `)` as the user wrote it.
    const written = at.line.slice(from + '@remind('.length, to - 1);
    const line = `${at.line.slice(0, from)}@remind(${inner(at.reminder, written)})${at.line.slice(to)}`;
    const next = replaceLine(text, at, line);
    const check = findInlineReminders(next, { path, defaultZone: zone });
    const problem = check.problems.find(
      (entry) =>
        entry.line === at.reminder.line &&
        entry.kind !== 'duplicate-block-id' &&
        entry.kind !== 'extra-token',
    );
    if (problem || !check.reminders.some((entry) => entry.line === at.reminder.line)) {
      throw new VaultWriteError(
        'UNPROCESSABLE',
        `${field}: ${problem?.reason ?? 'the new @remind(...) does not read as a reminder'}`,
        field,
      );
    }
    return next;
  };
}

/**
 * The token text of a one-off at `instant`: `YYYY-MM-DD HH:mm`, in the zone the token named
 * (kept) or the vault's (left implicit), as the plugin normalises it.
 */
export function onceTokenText(instant: number, zone: string, vaultZone: string): string {
  const wall = formatWall(instantToWall(instant, zone)).slice(0, 16).replace('T', ' ');
  return zone === vaultZone ? wall : `${wall} ${zone}`;
}
