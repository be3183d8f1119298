/**
 * ISO 8601 weeks (`2026-W48`: Monday 2026-11-23 … Sunday 2026-11-29) on day numbers (days since
 * 1970-01-01), the week the digest and the week view are about. Week 1 is the week holding the
 * year's first Thursday, so 2026-12-31 may be in `2027-W01` and 2027-01-01 in `2026-W53`.
 */
import { civilFromDays, daysFromCivil, weekdayOfDay } from '../reminders/local-time';

export interface IsoWeek {
  /** ISO week-numbering year (may differ from the calendar year at the edges). */
  readonly year: number;
  readonly week: number;
  /** Day number of its Monday. */
  readonly monday: number;
}

const WEEK_TEXT = /^(\d{4})-W(\d{2})$/;

export class IsoWeekError extends Error {
  override readonly name = 'IsoWeekError';
  readonly code = 'VALIDATION_ERROR';
  constructor(
    message: string,
    readonly field = 'week',
  ) {
    super(message);
  }
}

/** The ISO week holding day number `day`. */
export function isoWeekOfDay(day: number): IsoWeek {
  const monday = day - weekdayOfDay(day);
  const thursday = monday + 3;
  const year = civilFromDays(thursday).year;
  const week = Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1;
  return { year, week, monday };
}

/** Weeks in an ISO year: 53 when Jan 1 is a Thursday, or a Wednesday in a leap year. */
export function weeksInIsoYear(year: number): number {
  return isoWeekOfDay(daysFromCivil(year, 12, 28)).week;
}

/** Reads `YYYY-Www`; throws IsoWeekError naming what is wrong. */
export function parseIsoWeek(text: string): IsoWeek {
  const match = WEEK_TEXT.exec(text);
  if (!match) throw new IsoWeekError(`week "${text}" is not an ISO week like 2026-W48`);
  const year = Number(match[1]);
  const week = Number(match[2]);
  const last = weeksInIsoYear(year);
  if (week < 1 || week > last) {
    throw new IsoWeekError(`week "${text}": ${year} has weeks 01 to ${last}`);
  }
  // Jan 4 is always in week 1.
  const jan4 = daysFromCivil(year, 1, 4);
  const monday = jan4 - weekdayOfDay(jan4) + (week - 1) * 7;
  return { year, week, monday };
}

export function formatIsoWeek(week: Pick<IsoWeek, 'year' | 'week'>): string {
  return `${String(week.year).padStart(4, '0')}-W${String(week.week).padStart(2, '0')}`;
}

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` → the ISO week it belongs to, as text (`2026-11-23` → `2026-W48`). */
export function isoWeekOfDate(date: string): string {
  const match = DATE_TEXT.exec(date);
  if (!match) throw new IsoWeekError(`not a date: "${date}" (expected YYYY-MM-DD)`, 'date');
  return formatIsoWeek(
    isoWeekOfDay(daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]))),
  );
}

/** The Monday of an ISO week as `YYYY-MM-DD` (`2026-W01` → `2025-12-29`). */
export function mondayOfIsoWeek(week: string): string {
  const { year, month, day } = civilFromDays(parseIsoWeek(week).monday);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The week `offset` weeks after (or before, negative) `week`, as text. */
export function shiftIsoWeek(week: string, offset: number): string {
  return formatIsoWeek(isoWeekOfDay(parseIsoWeek(week).monday + offset * 7));
}
