// Public surface of shared/calendar: ISO weeks, Full Calendar note events, the week view's
// data and the iCalendar feed (docs/memory-digest-calendar.md).
export {
  IsoWeekError,
  formatIsoWeek,
  isoWeekOfDate,
  isoWeekOfDay,
  mondayOfIsoWeek,
  parseIsoWeek,
  shiftIsoWeek,
  weeksInIsoYear,
} from './iso-week';
export type { IsoWeek } from './iso-week';
export { readNoteEvent } from './calendar-entries';
export type { CalendarReminder, NoteEvent, NoteEventProblem } from './calendar-entries';
export {
  MAX_OCCURRENCES_PER_WEEK,
  buildCalendarWeek,
  dayNumber,
  dayStart,
  noteEventOccurrences,
  reminderOccurrences,
} from './calendar-week';
export type { CalendarWeekInput, EventOccurrence } from './calendar-week';
export { buildIcsFeed, escapeText, foldLine, vtimezone, zoneTransitions } from './ics-feed';
export type { IcsFeedInput, ZoneTransition } from './ics-feed';
