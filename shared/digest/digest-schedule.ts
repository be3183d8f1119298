/**
 * When the weekly digest is written (docs/memory-digest-calendar.md): a weekday and time in the user's zone, default
 * Monday 08:00, or off (`CAIRN_DIGEST=off|"mon 08:00"`, `--digest`). The digest written at a
 * slot covers the ISO week holding the day before the slot: Monday 08:00 writes the week that
 * just ended, Sunday 20:00 the week that is ending.
 */
import { MS_PER_DAY } from '../chat/zone-calendar';
import { isoWeekOfDay } from '../calendar/iso-week';
import type { IsoWeek } from '../calendar/iso-week';
import { instantToWall, wallToInstant } from '../reminders/local-time';

export interface DigestSchedule {
  /** Monday = 0 … Sunday = 6. */
  readonly weekday: number;
  /** Minutes after midnight. */
  readonly minute: number;
}

export const DEFAULT_DIGEST_SCHEDULE: DigestSchedule = { weekday: 0, minute: 8 * 60 };

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export class DigestScheduleError extends Error {
  override readonly name = 'DigestScheduleError';
}

/** `off` → null; `mon 08:00`, `Sunday 20:30` → the schedule. Throws naming what is wrong. */
export function parseDigestSchedule(text: string): DigestSchedule | null {
  const value = text.trim().toLowerCase();
  if (value === 'off' || value === 'none' || value === 'false') return null;
  const match = /^([a-z]{3})[a-z]*\s+(\d{1,2}):(\d{2})$/.exec(value);
  const weekday = match ? DAY_NAMES.indexOf(match[1]!) : -1;
  const hour = match ? Number(match[2]) : NaN;
  const minute = match ? Number(match[3]) : NaN;
  if (!match || weekday === -1 || hour > 23 || minute > 59) {
    throw new DigestScheduleError(
      `digest schedule "${text}" is not "off" or a weekday and time like "mon 08:00"`,
    );
  }
  return { weekday, minute: hour * 60 + minute };
}

/** The instant the digest of `week` is due. */
export function digestSlot(week: IsoWeek, schedule: DigestSchedule, zone: string): number {
  const day = week.monday + (schedule.weekday === 0 ? 7 : schedule.weekday);
  return wallToInstant(day * MS_PER_DAY + schedule.minute * 60_000, zone);
}

/** The latest week whose slot is at or before `now` (the one to write on start if missing). */
export function latestDueWeek(now: number, schedule: DigestSchedule, zone: string): IsoWeek {
  const today = Math.floor(instantToWall(now, zone) / MS_PER_DAY);
  for (let back = 0; ; back++) {
    const week = isoWeekOfDay(today - 7 * back);
    if (digestSlot(week, schedule, zone) <= now) return week;
  }
}

/** The slot after `now`: when to wake next. */
export function nextDigestSlot(now: number, schedule: DigestSchedule, zone: string): number {
  const due = latestDueWeek(now, schedule, zone);
  return digestSlot(isoWeekOfDay(due.monday + 7), schedule, zone);
}
