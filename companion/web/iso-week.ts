/**
 * ISO 8601 weeks for the Week view (`2026-W48`: Monday to Sunday, week 1 holds the year's first
 * Thursday). Calendar dates only, computed on UTC day numbers, so the phone's own zone and DST
 * never shift a day.
 */
const MS_PER_DAY = 86_400_000;

/** `YYYY-MM-DD` → the ISO week it belongs to. */
export function isoWeekOf(date: string): string {
  const day = dayNumber(date);
  const weekday = (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday: Monday = 0
  const thursday = day - weekday + 3;
  const year = new Date(thursday * MS_PER_DAY).getUTCFullYear();
  const firstThursday = firstThursdayOf(year);
  const week = Math.floor((thursday - firstThursday) / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The Monday (`YYYY-MM-DD`) of an ISO week. */
export function mondayOf(week: string): string {
  const match = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!match) throw new Error(`not an ISO week: "${week}" (expected e.g. 2026-W48)`);
  const thursday = firstThursdayOf(Number(match[1])) + (Number(match[2]) - 1) * 7;
  return formatDay(thursday - 3);
}

/** The week `offset` weeks after (or before, negative) `week`. */
export function shiftWeek(week: string, offset: number): string {
  return isoWeekOf(formatDay(dayNumber(mondayOf(week)) + offset * 7));
}

/** Today's date in the given zone (the phone's own by default), as `YYYY-MM-DD`. */
export function todayIn(now: number, zone?: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

function firstThursdayOf(year: number): number {
  const janFirst = Date.UTC(year, 0, 1) / MS_PER_DAY;
  const weekday = (((janFirst + 3) % 7) + 7) % 7;
  return janFirst + ((3 - weekday + 7) % 7);
}

function dayNumber(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new Error(`not a date: "${date}" (expected YYYY-MM-DD)`);
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / MS_PER_DAY;
}

function formatDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}
