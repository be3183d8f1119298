import type { ReminderQuery, ReminderReader, ReminderWriter } from '../../shared/chat/ports';
import { memoryLinkBody } from '../../shared/memory';
import type { Reminder } from '../../shared/protocol/reminders';
import type { ReminderService } from '../reminders';
import { ApiHttpError } from '../http/api-error';

/** Reminders listed by chat at most ("what's due this week?" wants a short list). */
const LIST_LIMIT = 50;

/**
 * The reminder tools (chat, MCP, the OpenAI route) over the same ReminderService as the reminder
 * routes, so a reminder made in chat on the phone is the note `POST /api/v1/reminders` would
 * write, scheduled at once.
 * The service's errors go to the tool runner as they are; it maps them (http/tool-error.ts).
 */
export function reminderToolPorts(service: ReminderService): {
  reminderReader: ReminderReader;
  reminderWriter: ReminderWriter;
} {
  const reminderReader: ReminderReader = {
    list: async (query: ReminderQuery) =>
      service.list({
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
        ...(query.status === undefined ? {} : { status: query.status }),
        limit: Math.min(query.limit ?? LIST_LIMIT, LIST_LIMIT),
      }).reminders,
    get: async (id: string) => {
      try {
        return await service.get(id);
      } catch (error) {
        if (error instanceof ApiHttpError && error.code === 'NOT_FOUND') return undefined;
        throw error;
      }
    },
  };
  const reminderWriter: ReminderWriter = {
    create: async (reminder) => {
      const made = await service.create(
        {
          title: reminder.title,
          due: reminder.due,
          timezone: reminder.timezone,
          ...(reminder.repeat === undefined ? {} : { repeat: reminder.repeat }),
        },
        // A reminder about a memory links its line, as POST /api/v1/memories/:id/reminder does.
        reminder.memory === undefined ? {} : { noteBody: memoryLinkBody(reminder.memory) },
      );
      return { ...made.reminder, deduplicated: made.deduplicated };
    },
    snooze: async (id, minutes) => service.snooze(id, minutes),
    complete: async (id) => service.done(id),
    // The companion never deletes a user's file: undoing a create cancels the reminder (the
    // note stays, `status: cancelled`), as DELETE /api/v1/reminders/:id does.
    delete: async (id) => {
      await service.cancel(id);
    },
    removeCreated: (reminder: Reminder) => service.removeCreated(reminder),
    restore: async (previous: Reminder) => {
      await service.patch(previous.id, { status: previous.status });
    },
  };
  return { reminderReader, reminderWriter };
}
