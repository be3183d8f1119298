/**
 * One model of "when" for both kinds of reminder (reminder notes and inline `@remind(...)`
 * lines), so the scheduler, the editor widget and the API compute next fires the same way.
 *
 * Times are kept as wall time (`YYYY-MM-DDTHH:mm`) plus an IANA zone, never as a bare instant:
 * a recurring 09:00 stays 09:00 local across daylight-saving changes, and a one-off written as
 * 17:00 Berlin stays 17:00 Berlin if the zone's rules change before it fires.
 */
import type { ReminderStatus } from '../protocol/reminders';
import { parseLocalDateTime, wallToInstant } from './local-time';

export type ReminderSchedule =
  | {
      kind: 'once';
      /** Local wall time of the single occurrence, `YYYY-MM-DDTHH:mm`. */
      start: string;
      zone: string;
    }
  | {
      kind: 'recurring';
      /** Normalised RRULE without the `RRULE:` prefix, expanded in `zone` (see recurrence.ts). */
      rrule: string;
      /** DTSTART as local wall time `YYYY-MM-DDTHH:mm`: the first occurrence, anchors INTERVAL. */
      start: string;
      zone: string;
    };

/** `done` and `cancelled` never fire; only reminder notes carry them, inline lines are `active`. */
export type { ReminderStatus };

/** The checkbox of the line an inline reminder sits on; reminder notes are `none`. */
export type TaskState = 'none' | 'open' | 'checked';

/**
 * DTSTART of inline recurrences. An `@remind(every monday 09:00)` line has no start date of its
 * own, and anchoring it at "now" would move INTERVAL (every 2 weeks) each time the file is read.
 * A fixed Monday at midnight long ago gives every reader the same lattice: weekly intervals count
 * from ISO weeks, `every 15 minutes` falls on :00/:15/:30/:45, `every 2 hours` on even hours.
 * Inline rules therefore must fix their own time of day (BYHOUR), and cannot use COUNT.
 */
export const INLINE_RECURRENCE_START = '2000-01-03T00:00';

/**
 * The instant of a schedule's first occurrence (for `once`, its only one).
 * Expects a schedule built by this module's readers (valid start and zone).
 */
export function scheduleStartInstant(schedule: ReminderSchedule): number {
  const parsed = parseLocalDateTime(schedule.start);
  if (!parsed.ok) throw new RangeError(`schedule start: ${parsed.message}`);
  return wallToInstant(parsed.wall, schedule.zone);
}
