/**
 * When a reminder fires next, for both kinds (notes and inline lines), and how the editor widget
 * says it ("today 17:00", "tomorrow 09:00", "Mon 09:00").
 *
 * Rules:
 * - `done`/`cancelled` reminders and checked tasks never fire: null;
 * - a one-off fires at its time if that is after `after`; once snoozed, its snooze time replaces
 *   it (docs/vault-format.md: snoozing a one-off rewrites its time);
 * - a recurring reminder fires at its next occurrence after `after` (wall time kept across DST,
 *   see recurrence.ts); a pending snooze (the note's `snoozed_until`) fires instead of the
 *   occurrences up to it, as the companion's scheduler does: snoozing a daily reminder by two
 *   days does not fire the day in between;
 * - `after` is exclusive: a reminder due exactly at `after` counts as already fired.
 */
import { isKnownZone } from './known-zone';
import { formatWall, instantToWall, parseLocalDateTime } from './local-time';
import { nextOccurrences, validateRrule } from './recurrence';
import type { ReminderSchedule, ReminderStatus, TaskState } from './reminder-schedule';
import { scheduleStartInstant } from './reminder-schedule';

export interface ReminderFireState {
  status: ReminderStatus;
  /** Epoch ms of a pending snooze. */
  snoozedUntil?: number;
  taskState: TaskState;
}

/**
 * The next fire strictly after `after` (epoch ms), or null when there is none.
 * @throws RecurrenceInputError for a recurring schedule that does not check out (see
 *   {@link checkSchedule}; schedules from this module's readers always do).
 */
export function nextFire(
  schedule: ReminderSchedule,
  state: ReminderFireState,
  after: number,
): number | null {
  if (state.status !== 'active' || state.taskState === 'checked') return null;
  const snooze =
    state.snoozedUntil !== undefined && state.snoozedUntil > after ? state.snoozedUntil : null;
  if (schedule.kind === 'once') {
    if (state.snoozedUntil !== undefined) return snooze;
    const at = scheduleStartInstant(schedule);
    return at > after ? at : null;
  }
  if (snooze !== null) return snooze;
  const [next] = nextOccurrences(schedule, after, schedule.zone, 1);
  return next ?? null;
}

/** Why a schedule cannot be used, or undefined when it is sound (for data from outside). */
export function checkSchedule(schedule: ReminderSchedule): string | undefined {
  if (!isKnownZone(schedule.zone)) return `unknown time zone "${schedule.zone}"`;
  const start = parseLocalDateTime(schedule.start);
  if (!start.ok) return start.message;
  if (schedule.kind === 'recurring') {
    const rule = validateRrule(schedule.rrule);
    if (!rule.ok) return rule.message;
  }
  return undefined;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MS_PER_DAY = 86_400_000;

/**
 * Short text for `instant` as seen in `zone` from `now`: `today 17:00`, `tomorrow 09:00`,
 * `yesterday 17:00`, `Mon 09:00` within the coming week, `Mon 7 Dec 09:00` later this year or
 * in the past, `Mon 7 Dec 2027 09:00` in another year. English, 24-hour, like the `@remind` form.
 */
export function describeNextFire(instant: number, zone: string, now: number): string {
  const wall = instantToWall(instant, zone);
  const nowWall = instantToWall(now, zone);
  const day = Math.floor(wall / MS_PER_DAY);
  const today = Math.floor(nowWall / MS_PER_DAY);
  const text = formatWall(wall);
  const time = text.slice(11, 16);
  const weekday = WEEKDAYS[(((day + 3) % 7) + 7) % 7]!;
  const difference = day - today;
  if (difference === 0) return `today ${time}`;
  if (difference === 1) return `tomorrow ${time}`;
  if (difference === -1) return `yesterday ${time}`;
  if (difference > 1 && difference < 7) return `${weekday} ${time}`;
  const month = MONTHS[Number(text.slice(5, 7)) - 1]!;
  const date = `${weekday} ${Number(text.slice(8, 10))} ${month}`;
  const sameYear = text.slice(0, 4) === formatWall(nowWall).slice(0, 4);
  return sameYear ? `${date} ${time}` : `${date} ${text.slice(0, 4)} ${time}`;
}
