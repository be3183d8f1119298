/**
 * The reminders one vault file holds, as the plugin's scheduler and upcoming view see them:
 * every inline reminder (`@remind(...)` and the foreign syntaxes settings enable) and, when the
 * file is a reminder note (`type: reminder`), the note itself. Problems (an invalid token,
 * broken front matter, a reminder note with a bad `due`) come back with the file and line or
 * field named, so one bad file never hides the others.
 */
import { parseFrontMatter } from '../../shared/markdown';
import { findInlineReminders, readReminderNote } from '../../shared/reminders';
import type { InlineSyntaxes, ReminderSchedule, TaskState } from '../../shared/reminders';
import type { ReminderStatus } from '../../shared/protocol/reminders';

export interface VaultReminderEntry {
  /** Block id / `path::text` for inline reminders, the note's `id` for reminder notes. */
  id: string;
  kind: 'inline' | 'note';
  title: string;
  path: string;
  /** 1-based line to open; 1 for a reminder note. */
  line: number;
  blockId?: string;
  schedule: ReminderSchedule;
  status: ReminderStatus;
  snoozedUntil?: number;
  taskState: TaskState;
}

export interface VaultFileReminders {
  entries: VaultReminderEntry[];
  /** Human-readable, each naming the file and the line or field. */
  problems: string[];
}

export interface ReadFileRemindersOptions {
  zone: string;
  syntaxes?: Partial<InlineSyntaxes>;
}

export function readFileReminders(
  path: string,
  text: string,
  options: ReadFileRemindersOptions,
): VaultFileReminders {
  const entries: VaultReminderEntry[] = [];
  const problems: string[] = [];
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    problems.push(`${path} line ${parsed.error.line}: front matter: ${parsed.error.message}`);
  } else if (parsed.data.type === 'reminder') {
    const read = readReminderNote(parsed.data, path, { defaultZone: options.zone });
    if (read.ok) {
      const { note } = read;
      entries.push({
        id: note.id,
        kind: 'note',
        title: note.title,
        path,
        line: 1,
        schedule: note.schedule,
        status: note.status,
        ...(note.snoozedUntil === undefined ? {} : { snoozedUntil: note.snoozedUntil }),
        taskState: 'none',
      });
    } else {
      for (const problem of read.problems) problems.push(`${path}: ${problem.message}`);
    }
  }
  let inline;
  try {
    inline = findInlineReminders(text, {
      path,
      defaultZone: options.zone,
      ...(options.syntaxes === undefined ? {} : { syntaxes: options.syntaxes }),
      ...(parsed.bodyStartLine > 1 ? { bodyStartLine: parsed.bodyStartLine } : {}),
    });
  } catch (error) {
    problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    return { entries, problems };
  }
  for (const reminder of inline.reminders) {
    entries.push({
      id: reminder.id,
      kind: 'inline',
      title: reminder.title,
      path,
      line: reminder.line,
      ...(reminder.blockId === undefined ? {} : { blockId: reminder.blockId }),
      schedule: reminder.schedule,
      status: 'active',
      taskState: reminder.taskState,
    });
  }
  for (const problem of inline.problems) problems.push(`${path}: ${problem.message}`);
  return { entries, problems };
}
