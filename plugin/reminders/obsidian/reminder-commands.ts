/**
 * Registers the reminder commands: New reminder, Add reminder to this line, Show upcoming
 * reminders, Snooze / Complete reminder under cursor (offered only on a line holding a reminder,
 * or in a reminder note). Line edits go through Obsidian's Editor
 * (one `replaceRange`, so one undo); reminder notes change through
 * `fileManager.processFrontMatter`, touching only their own keys.
 */
import { Notice } from 'obsidian';
import type { Editor, MarkdownFileInfo, MarkdownView, Plugin, TFile } from 'obsidian';
import { findBlockIds, formatInZone, newBlockId } from '../../../shared/reminders';
import type { Clock } from '../../../shared/ports';
import {
  addReminderToLine,
  completeLine,
  foreignSyntaxOf,
  lineNeedsTime,
  snoozeChoices,
  snoozeLine,
} from '../line-commands';
import type { LineCommandResult } from '../line-commands';
import { writeNewReminder } from '../new-reminder-form';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { NewReminderModal, ReminderTimeModal, SnoozeChoiceModal } from './reminder-modal';

export interface ReminderCommandDeps {
  plugin: Plugin;
  clock: Clock;
  settings: () => CairnSettings;
  showUpcoming: () => void;
}

export function registerReminderCommands(deps: ReminderCommandDeps): void {
  const { plugin, clock, settings } = deps;
  const app = plugin.app;

  plugin.addCommand({
    id: 'new-reminder',
    name: 'New reminder',
    callback: () => {
      new NewReminderModal(app, {
        now: () => clock.now(),
        zone: () => settings().timezone,
        save: async (check) => {
          const path = await writeNewReminder(check, {
            folder: settings().folders.reminders,
            now: clock.now(),
            randomBytes: (count) => crypto.getRandomValues(new Uint8Array(count)),
            files: {
              exists: (candidate) => app.vault.getAbstractFileByPath(candidate) !== null,
              create: async (candidate, text) => {
                await ensureFolder(plugin, settings().folders.reminders);
                await app.vault.create(candidate, text);
              },
            },
          });
          new Notice(`Reminder saved: ${path}`);
        },
      }).open();
    },
  });

  plugin.addCommand({
    id: 'add-reminder-to-line',
    name: 'Add reminder to this line',
    editorCallback: (editor) => {
      const write = (when?: string): string | undefined => {
        const taken = findBlockIds(editor.getValue());
        return editLine(editor, (line) =>
          addReminderToLine(line, {
            now: clock.now(),
            zone: settings().timezone,
            newBlockId: () => newBlockId(Math.random, taken),
            ...(when === undefined ? {} : { defaultWhen: when }),
          }),
        );
      };
      // A line that already has its @remind only needs normalising; otherwise ask when.
      if (!lineNeedsTime(editor.getLine(editor.getCursor().line))) {
        const problem = write();
        if (problem !== undefined) new Notice(`Cairn: ${problem}`);
        return;
      }
      new ReminderTimeModal(app, {
        now: () => clock.now(),
        zone: () => settings().timezone,
        save: (when) => write(when),
      }).open();
    },
  });

  plugin.addCommand({
    id: 'show-upcoming-reminders',
    name: 'Show upcoming reminders',
    callback: deps.showUpcoming,
  });

  plugin.addCommand({
    id: 'snooze-reminder',
    name: 'Snooze reminder on this line',
    editorCheckCallback: (checking, editor, context) => {
      const note = reminderNoteOf(plugin, context);
      if (!lineHasReminder(editor) && note === null) return false;
      if (checking) return true;
      const zone = settings().timezone;
      new SnoozeChoiceModal(app, snoozeChoices(clock.now(), zone), (choice) => {
        if (note !== null && !lineHasToken(editor)) {
          void app.fileManager
            .processFrontMatter(note, (frontMatter: Record<string, unknown>) => {
              const noteZone =
                typeof frontMatter.timezone === 'string' ? frontMatter.timezone : zone;
              frontMatter.snoozed_until = formatInZone(choice.until, noteZone);
            })
            .then(() => new Notice(`Snoozed ${choice.label}`))
            .catch((error: unknown) => new Notice(`Cairn: could not snooze: ${String(error)}`));
          return;
        }
        editLineOrSay(
          editor,
          (line) => snoozeLine(line, choice.until, zone),
          `Snoozed ${choice.label}`,
        );
      }).open();
      return true;
    },
  });

  plugin.addCommand({
    id: 'complete-reminder',
    name: 'Complete reminder on this line',
    editorCheckCallback: (checking, editor, context) => {
      const note = reminderNoteOf(plugin, context);
      if (!lineHasReminder(editor) && note === null) return false;
      if (checking) return true;
      if (note !== null && !lineHasToken(editor)) {
        void app.fileManager
          .processFrontMatter(note, (frontMatter: Record<string, unknown>) => {
            frontMatter.status = 'done';
          })
          .then(() => new Notice('Reminder done'))
          .catch((error: unknown) => new Notice(`Cairn: could not complete: ${String(error)}`));
        return true;
      }
      editLineOrSay(
        editor,
        (line) =>
          completeLine(line, {
            today: formatInZone(clock.now(), settings().timezone).slice(0, 10),
          }),
        'Reminder done',
      );
      return true;
    },
  });
}

/** The cursor's line holds a reminder: Cairn's `@remind(` or a format Cairn reads. */
function lineHasReminder(editor: Editor): boolean {
  const line = editor.getLine(editor.getCursor().line);
  return line.includes('@remind(') || foreignSyntaxOf(line) !== undefined;
}

function lineHasToken(editor: Editor): boolean {
  return editor.getLine(editor.getCursor().line).includes('@remind(');
}

/** The open file when it is a reminder note (`type: reminder` in its front matter). */
function reminderNoteOf(plugin: Plugin, context: MarkdownView | MarkdownFileInfo): TFile | null {
  const file = context.file;
  if (!file) return null;
  const frontMatter = plugin.app.metadataCache.getFileCache(file)?.frontmatter;
  return frontMatter?.type === 'reminder' ? file : null;
}

/** Rewrites the cursor's line as one edit; returns why nothing changed, if it could not. */
function editLine(
  editor: Editor,
  change: (line: string) => LineCommandResult,
  success?: string,
): string | undefined {
  const lineNumber = editor.getCursor().line;
  const line = editor.getLine(lineNumber);
  const result = change(line);
  if (!result.ok) return result.problem;
  if (result.line === line) return undefined;
  editor.replaceRange(
    result.line,
    { line: lineNumber, ch: 0 },
    { line: lineNumber, ch: line.length },
  );
  if (success !== undefined) new Notice(success);
  return undefined;
}

/** editLine, saying in a notice why nothing changed. */
function editLineOrSay(
  editor: Editor,
  change: (line: string) => LineCommandResult,
  success?: string,
): void {
  const problem = editLine(editor, change, success);
  if (problem !== undefined) new Notice(`Cairn: ${problem}`);
}

async function ensureFolder(plugin: Plugin, folder: string): Promise<void> {
  if (folder === '' || plugin.app.vault.getAbstractFileByPath(folder) !== null) return;
  try {
    await plugin.app.vault.createFolder(folder);
  } catch {
    // Created meanwhile (another device synced it): the file write below still works.
  }
}
