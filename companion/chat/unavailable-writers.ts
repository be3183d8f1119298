import { ChatPortError } from '../../shared/chat/ports';
import type { NoteWriter, ReminderReader, ReminderWriter } from '../../shared/chat/ports';

/*
 * The chat's write tools (and the reminder list) while the companion has no vault writer wired
 * into chat: every call is the engine's UNAVAILABLE error with a message a person can act on,
 * never a silent no-op. Search and answers work regardless.
 */

const WRITES_MESSAGE =
  'writing notes and reminders from chat on the companion is not available yet: it arrives with the companion reminder and note API; create it in Obsidian meanwhile';
const READS_MESSAGE =
  'the companion has no reminder scheduler running, so it cannot list reminders; open Obsidian to see them';

function unavailable(message: string): never {
  throw new ChatPortError('UNAVAILABLE', message);
}

export const unavailableNoteWriter: NoteWriter = {
  create: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  append: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  deleteCreated: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  removeAppended: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
};

export const unavailableReminderWriter: ReminderWriter = {
  create: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  snooze: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  complete: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  delete: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
  restore: () => Promise.reject(new ChatPortError('UNAVAILABLE', WRITES_MESSAGE)),
};

export const unavailableReminderReader: ReminderReader = {
  list: () => Promise.resolve().then(() => unavailable(READS_MESSAGE)),
  get: () => Promise.resolve().then(() => unavailable(READS_MESSAGE)),
};
