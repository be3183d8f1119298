/**
 * The week view's data without a companion: the vault's reminders (as the plugin's local
 * scheduler read them) and Full Calendar notes, laid out by the same shared builder as the
 * companion's `GET /api/v1/calendar/week`, so both show the same week.
 */
import { buildCalendarWeek, isoWeekOfDay, readNoteEvent } from '../../shared/calendar';
import type { CalendarReminder, IsoWeek, NoteEvent } from '../../shared/calendar';
import { MS_PER_DAY } from '../../shared/chat/zone-calendar';
import type { CalendarWeek } from '../../shared/protocol/calendar';
import { instantToWall, reminderDeepLink, scheduleStartInstant } from '../../shared/reminders';
import type { VaultReminderEntry } from '../reminders/vault-reminder-entries';

/** A vault reminder entry as the calendar reads it (undefined when its start does not read). */
export function calendarReminder(
  entry: VaultReminderEntry,
  vaultName: string,
): CalendarReminder | undefined {
  const schedule = entry.schedule;
  let calendarSchedule: CalendarReminder['schedule'];
  if (schedule.kind === 'once') {
    try {
      calendarSchedule = { kind: 'once', at: scheduleStartInstant(schedule), zone: schedule.zone };
    } catch {
      return undefined;
    }
  } else {
    calendarSchedule = {
      kind: 'recurring',
      rrule: schedule.rrule,
      start: schedule.start,
      zone: schedule.zone,
    };
  }
  return {
    id: entry.id,
    title: entry.title,
    path: entry.path,
    ...(entry.kind === 'inline' ? { line: entry.line } : {}),
    schedule: calendarSchedule,
    status: entry.status,
    taskChecked: entry.taskState === 'checked',
    deepLink: reminderDeepLink(vaultName, entry.path, entry.blockId),
  };
}

/** Full Calendar events of notes, from their front matter (problems are left out here). */
export function noteEvents(
  notes: Iterable<{ path: string; frontMatter: Record<string, unknown> | undefined }>,
  zone: string,
): NoteEvent[] {
  const events: NoteEvent[] = [];
  for (const note of notes) {
    if (!note.frontMatter) continue;
    const read = readNoteEvent(note.frontMatter, note.path, zone);
    if (read && 'event' in read) events.push(read.event);
  }
  return events;
}

export function localWeek(input: {
  week: IsoWeek;
  zone: string;
  entries: readonly VaultReminderEntry[];
  events: readonly NoteEvent[];
  vaultName: string;
}): CalendarWeek {
  const reminders = input.entries.flatMap(
    (entry) => calendarReminder(entry, input.vaultName) ?? [],
  );
  return buildCalendarWeek({ week: input.week, zone: input.zone, reminders, events: input.events });
}

/** The ISO week `offset` weeks from the one holding `now` in `zone`. */
export function weekAt(now: number, zone: string, offset: number): IsoWeek {
  const today = Math.floor(instantToWall(now, zone) / MS_PER_DAY);
  return isoWeekOfDay(today + offset * 7);
}

/** Why Done or Snooze would be refused on a reminder (absent: offered). */
export interface ReadOnlyActions {
  readonly done?: string;
  readonly snooze?: string;
}
