import { ChatPortError } from '../../shared/chat/ports';
import type { NoteWriter, ReminderReader, ReminderWriter } from '../../shared/chat/ports';

/*
 * Tools the companion cannot serve (no note writer wired in; reminders without a running
 * scheduler): every call is the runner's UNAVAILABLE error with a message a person
 * can act on, never a silent no-op. Search and answers work regardless.
 */

const NOTES_MESSAGE =
  'writing notes from chat on the companion is not available yet: it arrives with the companion note API; write the note in Obsidian meanwhile';
const REMINDERS_MESSAGE =
  'the companion has no reminder scheduler running, so chat cannot read or write reminders here; use Obsidian meanwhile';

function unavailable(message: string): Promise<never> {
  return Promise.reject(new ChatPortError('UNAVAILABLE', message));
}

const notes = () => unavailable(NOTES_MESSAGE);
const reminders = () => unavailable(REMINDERS_MESSAGE);

export const unavailableNoteWriter: NoteWriter = {
  create: notes,
  append: notes,
  deleteCreated: notes,
  removeAppended: notes,
};

export const unavailableReminderWriter: ReminderWriter = {
  create: reminders,
  snooze: reminders,
  complete: reminders,
  delete: reminders,
  restore: reminders,
};

export const unavailableReminderReader: ReminderReader = {
  list: reminders,
  get: reminders,
};
