/**
 * Done and Snooze for a reminder that fired locally, from its notice (phones have no system
 * notification actions for plugins). The same edits as the line commands (line-commands.ts) and
 * the reminder-note commands, applied to the file without an editor: one `vault.process` for an
 * inline reminder, `processFrontMatter` for a reminder note, so a write happens whole or not at
 * all, and a line that no longer holds the reminder is left alone. `editReminder` is the one
 * place such a write finds its target; the week view's Done and Snooze use it too.
 */
import { Notice, TFile } from 'obsidian';
import type { App } from 'obsidian';
import { formatInZone } from '../../../shared/reminders';
import { completeLine, snoozeLine } from '../line-commands';
import type { LineCommandResult } from '../line-commands';
import type { VaultReminderEntry } from '../vault-reminder-entries';

/** Reads a file's reminders as the scheduler does (readFileReminders with the settings). */
export type ReadReminders = (path: string, text: string) => readonly VaultReminderEntry[];

export async function completeFiredReminder(
  app: App,
  entry: VaultReminderEntry,
  read: ReadReminders,
  today: string,
): Promise<void> {
  const problem = await editReminder(app, entry, read, {
    note: (frontMatter) => (frontMatter.status = 'done'),
    line: (line) => completeLine(line, { today }),
  });
  new Notice(problem === undefined ? 'Reminder done' : `Cairn: ${problem}`);
}

export async function snoozeFiredReminder(
  app: App,
  entry: VaultReminderEntry,
  choice: { label: string; until: number },
  zone: string,
  read: ReadReminders,
): Promise<void> {
  const problem = await editReminder(app, entry, read, {
    note: (frontMatter) => {
      const noteZone = typeof frontMatter.timezone === 'string' ? frontMatter.timezone : zone;
      frontMatter.snoozed_until = formatInZone(choice.until, noteZone);
    },
    line: (line) => snoozeLine(line, choice.until, zone),
  });
  new Notice(problem === undefined ? `Snoozed ${choice.label}` : `Cairn: ${problem}`);
}

/** Which reminder to change: its file, its id (block id or `path::line text`) and its kind. */
export interface ReminderTarget {
  path: string;
  id: string;
  kind: 'inline' | 'note';
}

export interface ReminderEdits {
  /** A reminder note's change, on its front matter only. */
  note: (frontMatter: Record<string, unknown>) => void;
  /** An inline reminder's change, on the line that holds it now. */
  line: (line: string) => LineCommandResult;
}

/**
 * Changes one reminder where it is at write time: the note may have changed since it was
 * listed (lines above deleted, the line edited), so an inline reminder is found again by its
 * id (block id, else its line's text) in the text being written, inside one `vault.process`.
 * Returns why nothing was written (naming the file), or undefined when the write happened.
 */
export async function editReminder(
  app: App,
  target: ReminderTarget,
  read: ReadReminders,
  edits: ReminderEdits,
): Promise<string | undefined> {
  const file = app.vault.getAbstractFileByPath(target.path);
  if (!(file instanceof TFile)) return `${target.path} no longer exists`;
  try {
    if (target.kind === 'note') {
      await app.fileManager.processFrontMatter(file, edits.note);
      return undefined;
    }
    let problem: string | undefined;
    await app.vault.process(file, (text) => {
      const current = read(target.path, text).find((other) => other.id === target.id);
      const lines = text.split('\n');
      const index = (current?.line ?? 0) - 1;
      const line = lines[index];
      if (current === undefined || line === undefined) {
        problem = `${target.path}: this reminder is no longer in the note`;
        return text;
      }
      const result = edits.line(line);
      if (!result.ok) {
        problem = `${target.path}:${current.line}: ${result.problem}`;
        return text;
      }
      lines[index] = result.line;
      return lines.join('\n');
    });
    return problem;
  } catch (error) {
    return `could not change ${target.path}: ${String(error)}`;
  }
}
