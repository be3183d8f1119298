/**
 * Calendar facts about "now" in the user's zone, for the router: today's date, the weekday, and
 * wall times formatted the way tool arguments want them. Everything goes through
 * shared/reminders/local-time, so results never depend on the process time zone.
 */
import { civilFromDays, formatWall, instantToWall, weekdayOfDay } from '../reminders/local-time';

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

export interface ZoneNow {
  /** The instant, epoch ms. */
  readonly now: number;
  readonly zone: string;
  /** Wall clock in `zone` at `now`, as floating ms (see local-time.ts). */
  readonly wall: number;
  /** Day number (days since 1970-01-01) of today in `zone`. */
  readonly today: number;
}

export function zoneNow(now: number, zone: string): ZoneNow {
  const wall = instantToWall(now, zone);
  return { now, zone, wall, today: Math.floor(wall / MS_PER_DAY) };
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  const { year, month, day: dayOfMonth } = civilFromDays(day);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(dayOfMonth)}`;
}

/** A wall time as `YYYY-MM-DDTHH:mm`: minute resolution, no zone (the `timezone` argument says it). */
export function formatWallMinute(wall: number): string {
  return formatWall(wall).slice(0, 16);
}

/** Monday = 0 … Sunday = 6. */
export function weekdayOf(day: number): number {
  return weekdayOfDay(day);
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}
