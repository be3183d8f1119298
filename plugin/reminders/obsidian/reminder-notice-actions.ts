/**
 * Done and Snooze for a reminder that fired locally, from its notice (phones have no system
 * notification actions for plugins). The same edits as the line commands (line-commands.ts) and
 * the reminder-note commands, applied to the file without an editor: one `vault.process` for an
 * inline reminder, `processFrontMatter` for a reminder note, so a write happens whole or not at
 * all, and a line that no longer holds the reminder is left alone.
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
): Promise<void> {
  await edit(
    app,
    entry,
    read,
    (frontMatter) => (frontMatter.status = 'done'),
    (line) => completeLine(line),
    'Reminder done',
  );
}

export async function snoozeFiredReminder(
  app: App,
  entry: VaultReminderEntry,
  choice: { label: string; until: number },
  zone: string,
  read: ReadReminders,
): Promise<void> {
  await edit(
    app,
    entry,
    read,
    (frontMatter) => {
      const noteZone = typeof frontMatter.timezone === 'string' ? frontMatter.timezone : zone;
      frontMatter.snoozed_until = formatInZone(choice.until, noteZone);
    },
    (line) => snoozeLine(line, choice.until, zone),
    `Snoozed ${choice.label}`,
  );
}

async function edit(
  app: App,
  entry: VaultReminderEntry,
  read: ReadReminders,
  noteEdit: (frontMatter: Record<string, unknown>) => void,
  lineEdit: (line: string) => LineCommandResult,
  done: string,
): Promise<void> {
  const file = app.vault.getAbstractFileByPath(entry.path);
  if (!(file instanceof TFile)) {
    new Notice(`Cairn: ${entry.path} no longer exists.`);
    return;
  }
  try {
    if (entry.kind === 'note') {
      await app.fileManager.processFrontMatter(file, noteEdit);
    } else {
      let problem: string | undefined;
      await app.vault.process(file, (text) => {
        // The note may have changed since the reminder fired: find it again by its id in the
        // text being written, and leave the file alone if it is gone.
        const current = read(entry.path, text).find((other) => other.id === entry.id);
        const lines = text.split('\n');
        const index = (current?.line ?? 0) - 1;
        const line = lines[index];
        if (current === undefined || line === undefined) {
          problem = 'this reminder is no longer in the note';
          return text;
        }
        const result = lineEdit(line);
        if (!result.ok) {
          problem = result.problem;
          return text;
        }
        lines[index] = result.line;
        return lines.join('\n');
      });
      if (problem !== undefined) {
        new Notice(`Cairn: ${entry.path}: ${problem}`);
        return;
      }
    }
    new Notice(done);
  } catch (error) {
    new Notice(`Cairn: could not change ${entry.path}: ${String(error)}`);
  }
}
