/**
 * The week view's data (docs/memory-digest-calendar.md, shared/protocol/calendar.ts): seven days, Monday first, in
 * one zone, each with the reminder occurrences and note events that fall on it. Pure: the
 * companion's route and the plugin's offline week view both call it.
 */
import type { CalendarItem, CalendarWeek } from '../protocol/calendar';
import { formatInZone, wallToInstant } from '../reminders/local-time';
import { occurrencesBetween, RecurrenceInputError } from '../reminders/recurrence';
import { formatDay, MS_PER_DAY } from '../chat/zone-calendar';
import type { CalendarReminder, NoteEvent } from './calendar-entries';
import { formatIsoWeek } from './iso-week';
import type { IsoWeek } from './iso-week';
import { daysFromCivil, weekdayOfDay } from '../reminders/local-time';

/** Occurrences of one reminder listed in a week at most (a minutely rule would be 10,080). */
export const MAX_OCCURRENCES_PER_WEEK = 200;

export interface CalendarWeekInput {
  readonly week: IsoWeek;
  readonly zone: string;
  readonly reminders: Iterable<CalendarReminder>;
  readonly events: Iterable<NoteEvent>;
  /** Whether an occurrence (epoch ms) of a reminder is on the missed list. */
  readonly isMissed?: (reminderId: string, occurrence: number) => boolean;
}

/** Epoch ms of 00:00 on day number `day` in `zone`. */
export function dayStart(day: number, zone: string): number {
  return wallToInstant(day * MS_PER_DAY, zone);
}

/** Occurrences of a reminder in [from, to) (epoch ms), at most `limit`. Never throws. */
export function reminderOccurrences(
  reminder: CalendarReminder,
  from: number,
  to: number,
  limit = MAX_OCCURRENCES_PER_WEEK,
): number[] {
  const schedule = reminder.schedule;
  if (schedule.kind === 'once') return schedule.at >= from && schedule.at < to ? [schedule.at] : [];
  try {
    return occurrencesBetween(schedule, from - 1, to - 1, schedule.zone, limit);
  } catch (error) {
    if (error instanceof RecurrenceInputError) return [];
    throw error;
  }
}

/** One occurrence of a note event: its start and end instants. */
export interface EventOccurrence {
  readonly start: number;
  readonly end: number | null;
  /** Day number of its first day. */
  readonly day: number;
}

/** Occurrences of a note event starting on days [fromDay, toDay). */
export function noteEventOccurrences(
  event: NoteEvent,
  fromDay: number,
  toDay: number,
): EventOccurrence[] {
  const days: number[] = [];
  const repeat = event.repeat;
  if (repeat.kind === 'single') {
    const day = dayNumber(repeat.date);
    if (day >= fromDay && day < toDay) days.push(day);
  } else {
    const first =
      repeat.startRecur === null ? fromDay : Math.max(fromDay, dayNumber(repeat.startRecur));
    const last =
      repeat.endRecur === null ? toDay - 1 : Math.min(toDay - 1, dayNumber(repeat.endRecur));
    for (let day = first; day <= last; day++)
      if (repeat.days.includes(weekdayOfDay(day))) days.push(day);
  }
  return days.map((day) => {
    if (event.allDay) {
      const span =
        repeat.kind === 'single' && repeat.endDate !== null
          ? dayNumber(repeat.endDate) - day + 1
          : 1;
      return { day, start: dayStart(day, event.zone), end: dayStart(day + span, event.zone) };
    }
    const start = wallToInstant(day * MS_PER_DAY + minutes(event.startTime!) * 60_000, event.zone);
    let end: number | null = null;
    if (event.endTime !== null) {
      const endDay =
        repeat.kind === 'single' && repeat.endDate !== null ? dayNumber(repeat.endDate) : day;
      end = wallToInstant(endDay * MS_PER_DAY + minutes(event.endTime) * 60_000, event.zone);
      // "22:00–01:00" on one day runs past midnight.
      if (end <= start) end += MS_PER_DAY;
    }
    return { day, start, end };
  });
}

export function buildCalendarWeek(input: CalendarWeekInput): CalendarWeek {
  const { week, zone } = input;
  const from = dayStart(week.monday, zone);
  const to = dayStart(week.monday + 7, zone);
  const dayStarts = Array.from({ length: 8 }, (_, index) => dayStart(week.monday + index, zone));
  const dayIndexOf = (instant: number) => {
    for (let index = 6; index >= 0; index--) if (instant >= dayStarts[index]!) return index;
    return 0;
  };
  const days: CalendarItem[][] = Array.from({ length: 7 }, () => []);

  for (const reminder of input.reminders) {
    if (reminder.status === 'cancelled') continue;
    const recurring = reminder.schedule.kind === 'recurring';
    const done = reminder.status === 'done' || reminder.taskChecked;
    for (const at of reminderOccurrences(reminder, from, to)) {
      const status = done ? 'done' : input.isMissed?.(reminder.id, at) ? 'missed' : 'active';
      days[dayIndexOf(at)]!.push({
        kind: 'reminder',
        id: reminder.id,
        title: reminder.title,
        start: formatInZone(at, zone),
        end: null,
        all_day: false,
        path: reminder.path,
        line: reminder.line ?? null,
        status,
        recurring,
      });
    }
  }
  for (const event of input.events) {
    // A day's worth of slack either side: the event's own zone may differ from the week's.
    for (const occurrence of noteEventOccurrences(event, week.monday - 1, week.monday + 8)) {
      const index = event.allDay ? occurrence.day - week.monday : dayIndexOf(occurrence.start);
      if (event.allDay ? index < 0 || index > 6 : occurrence.start < from || occurrence.start >= to)
        continue;
      days[index]!.push({
        kind: 'event',
        id: event.id,
        title: event.title,
        start: formatInZone(occurrence.start, zone),
        end: occurrence.end === null ? null : formatInZone(occurrence.end, zone),
        all_day: event.allDay,
        path: event.path,
        line: null,
        status: null,
        recurring: event.repeat.kind === 'weekly',
      });
    }
  }
  const order = (a: CalendarItem, b: CalendarItem) =>
    Number(b.all_day) - Number(a.all_day) ||
    Date.parse(a.start) - Date.parse(b.start) ||
    a.title.localeCompare(b.title);
  return {
    week: formatIsoWeek(week),
    start: formatDay(week.monday),
    end: formatDay(week.monday + 6),
    timezone: zone,
    days: days.map((items, index) => ({
      date: formatDay(week.monday + index),
      items: items.sort(order),
    })),
  };
}

/** Day number of `YYYY-MM-DD` (already checked by readNoteEvent). */
export function dayNumber(date: string): number {
  return daysFromCivil(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)),
    Number(date.slice(8, 10)),
  );
}

function minutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}
