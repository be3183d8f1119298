/**
 * Wall-clock time in an IANA zone, without the process time zone.
 *
 * A "wall time" here is a local date and time with no zone, stored as the number of
 * milliseconds it would be if it were UTC ("floating" time in RFC 5545 terms). Recurrence
 * rules are expanded on wall times and only then mapped to instants, so a 09:00 reminder
 * stays at 09:00 when the clocks change. Every conversion goes through luxon's Intl-backed
 * zone data, so results do not depend on `process.env.TZ`.
 */
import { IANAZone } from 'luxon';

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/** No zone has ever been further than this from UTC (historic LMT offsets included). */
export const MAX_ZONE_OFFSET_MS = 16 * 60 * MS_PER_MINUTE;

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

export type WallTimeResult = { ok: true; wall: number } | { ok: false; message: string };

/**
 * Answers of `IANAZone.isValidZone`, which builds an `Intl.DateTimeFormat` on every call
 * (0.2–0.4 ms): the scheduler asks for every reminder on every plan. Bounded, since zone names
 * come from user text.
 */
const zoneValidity = new Map<string, boolean>();
const ZONE_VALIDITY_ENTRIES = 1024;

/** True for IANA names luxon (and so Intl) knows, e.g. `Europe/Berlin`; false for `CET+1` or ``. */
export function isValidZone(zone: string): boolean {
  const known = zoneValidity.get(zone);
  if (known !== undefined) return known;
  const valid = IANAZone.isValidZone(zone);
  if (zoneValidity.size >= ZONE_VALIDITY_ENTRIES) zoneValidity.clear();
  zoneValidity.set(zone, valid);
  return valid;
}

/**
 * Reads `YYYY-MM-DDTHH:mm` (seconds, if written, must be `00`: reminders have minute
 * resolution) into a wall time. Rejects calendar-impossible dates such as `2026-02-30`.
 */
export function parseLocalDateTime(text: string): WallTimeResult {
  const match = LOCAL_DATE_TIME.exec(text);
  if (!match) {
    return { ok: false, message: `"${text}" is not a local date and time (YYYY-MM-DDTHH:mm)` };
  }
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = match[6] === undefined ? 0 : Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: `"${text}": ${year}-${pad2(month)} has no day ${day}` };
  }
  if (hour > 23 || minute > 59) {
    return { ok: false, message: `"${text}": ${pad2(hour)}:${pad2(minute)} is not a time of day` };
  }
  if (second !== 0) {
    return {
      ok: false,
      message: `"${text}": seconds must be 00 (reminders have minute resolution)`,
    };
  }
  return { ok: true, wall: wallFromParts(year, month, day, hour, minute) };
}

/** The wall time of the given local fields (month 1-12). */
export function wallFromParts(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
): number {
  return daysFromCivil(year, month, day) * MS_PER_DAY + (hour * 60 + minute) * MS_PER_MINUTE;
}

/** Offset of `zone` from UTC at `instant`, in milliseconds (east positive). */
export function zoneOffsetMs(instant: number, zone: string): number {
  return IANAZone.create(zone).offset(instant) * MS_PER_MINUTE;
}

/** The wall time shown by clocks in `zone` at `instant`. */
export function instantToWall(instant: number, zone: string): number {
  return instant + zoneOffsetMs(instant, zone);
}

/**
 * The instant at which clocks in `zone` show `wall`, following RFC 5545 §3.3.5:
 * - a wall time that occurs twice (clocks going back) means its FIRST occurrence:
 *   01:30 on 2026-11-01 in New York is 01:30 EDT (05:30Z), not 01:30 EST;
 * - a wall time that never occurs (clocks going forward) is read with the offset in force
 *   before the gap, i.e. it moves forward by the gap: 02:30 on 2026-03-29 in Berlin is
 *   03:30 CEST (01:30Z).
 * Assumes at most one offset change within two days either side, true of every zone in use.
 */
export function wallToInstant(wall: number, zone: string): number {
  const day = Math.floor(wall / MS_PER_DAY);
  const offsetEarlier = offsetAtDayStart(zone, day - 1);
  // Fast path: the same offset from the day before to the day after, so no change is near and
  // the wall time has exactly one instant. This keeps minutely expansion cheap.
  if (offsetEarlier === offsetAtDayStart(zone, day + 2)) return wall - offsetEarlier;

  const tz = IANAZone.create(zone);
  const offsetBefore = tz.offset(wall - MS_PER_DAY) * MS_PER_MINUTE;
  const offsetAfter = tz.offset(wall + MS_PER_DAY) * MS_PER_MINUTE;
  const withBefore = wall - offsetBefore;
  const withAfter = wall - offsetAfter;
  const beforeFits = tz.offset(withBefore) * MS_PER_MINUTE === offsetBefore;
  const afterFits = tz.offset(withAfter) * MS_PER_MINUTE === offsetAfter;
  if (beforeFits && afterFits) return Math.min(withBefore, withAfter);
  if (beforeFits) return withBefore;
  if (afterFits) return withAfter;
  return withBefore;
}

/** Offsets at 00:00Z of given days, per zone: Intl lookups cost tens of microseconds each. */
const dayStartOffsets = new Map<string, Map<number, number>>();
const DAY_START_CACHE_LIMIT = 20_000;

function offsetAtDayStart(zone: string, day: number): number {
  let byDay = dayStartOffsets.get(zone);
  if (byDay === undefined) {
    byDay = new Map();
    dayStartOffsets.set(zone, byDay);
  }
  let offset = byDay.get(day);
  if (offset === undefined) {
    if (byDay.size >= DAY_START_CACHE_LIMIT) byDay.clear();
    offset = zoneOffsetMs(day * MS_PER_DAY, zone);
    byDay.set(day, offset);
  }
  return offset;
}

/** `instant` as ISO 8601 with the zone's offset at that instant, e.g. `1997-09-02T09:00:00-04:00`. */
export function formatInZone(instant: number, zone: string): string {
  const offset = zoneOffsetMs(instant, zone);
  return `${formatWall(instant + offset)}${formatOffset(offset)}`;
}

/** A wall time as `YYYY-MM-DDTHH:mm:ss`. */
export function formatWall(wall: number): string {
  const { year, month, day } = civilFromDays(Math.floor(wall / MS_PER_DAY));
  const msOfDay = wall - Math.floor(wall / MS_PER_DAY) * MS_PER_DAY;
  const hour = Math.floor(msOfDay / 3_600_000);
  const minute = Math.floor((msOfDay % 3_600_000) / MS_PER_MINUTE);
  const second = Math.floor((msOfDay % MS_PER_MINUTE) / 1000);
  const yyyy = String(year).padStart(4, '0');
  return `${yyyy}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}`;
}

function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.abs(Math.round(offsetMs / MS_PER_MINUTE));
  return `${sign}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
// Howard Hinnant's days_from_civil / civil_from_days. Date.UTC is avoided because it
// maps years 0-99 to 1900-1999.

/** English month names, January first, for messages. */
export const MONTH_NAMES: readonly string[] = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Day of the week of a day number, Monday = 0 … Sunday = 6 (1970-01-01 was a Thursday). */
export function weekdayOfDay(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}
