/**
 * A whole reminder-note file (docs/vault-format.md): the note's front matter in the documented order, written by
 * shared/markdown's `stringifyNoteFile`, then the body (a link back to where it came from).
 * Reading it back with `parseFrontMatter` + `readReminderNote` gives the same note.
 */
import { stringifyNoteFile } from '../markdown/index';
import { reminderNoteFields } from './reminder-note';
import type { ReminderNote } from './reminder-note';

export function buildReminderNoteFile(note: ReminderNote, body = ''): string {
  const text = body === '' || body.endsWith('\n') ? body : `${body}\n`;
  return stringifyNoteFile(reminderNoteFields(note), text);
}
