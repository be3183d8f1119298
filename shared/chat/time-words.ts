/**
 * Small time vocabularies the router reads itself: date ranges for listing reminders ("this
 * week") and durations for snoozing ("for an hour"). chrono-node reads points in time, not
 * ranges or bare durations, so these two are done here.
 */
import * as chrono from 'chrono-node';
import { formatDay, MS_PER_DAY, MS_PER_MINUTE, weekdayOf, type ZoneNow } from './zone-calendar';
import { civilFromDays, daysFromCivil, daysInMonth, wallToInstant } from '../reminders/local-time';

/** Inclusive range of days, as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

/**
 * The range a listing asks about, or undefined when none is said.
 * - `today`/`tonight`, `tomorrow`: that day;
 * - `this week`: today through Sunday (ISO weeks start on Monday); on a Saturday or Sunday the
 *   week ahead is meant, so through the next Sunday; `next week`: next Monday–Sunday;
 * - `this weekend`: the coming Saturday–Sunday (today when it is the weekend);
 * - `this month`: today through the month's last day; `next month`: the whole next month;
 * - `next N days`: today through today + N;
 * - any other date chrono finds ("on friday", "Dec 3"): that day.
 */
export function readDayRange(text: string, clock: ZoneNow): DayRange | undefined {
  const today = clock.today;
  const day = (from: number, to = from) => ({ from: formatDay(from), to: formatDay(to) });
  const weekday = weekdayOf(today);
  const lower = text.toLowerCase();

  if (/\b(?:today|tonight)\b/.test(lower)) return day(today);
  if (/\btomorrow\b/.test(lower)) return day(today + 1);
  if (/\bthis week\b/.test(lower)) {
    return day(today, today + (6 - weekday) + (weekday >= 5 ? 7 : 0));
  }
  if (/\bnext week\b/.test(lower)) return day(today + 7 - weekday, today + 13 - weekday);
  if (/\b(?:this )?weekend\b/.test(lower)) {
    return weekday >= 5
      ? day(today, today + (6 - weekday))
      : day(today + 5 - weekday, today + 6 - weekday);
  }
  const { year, month } = civilFromDays(today);
  if (/\bthis month\b/.test(lower)) {
    return day(today, daysFromCivil(year, month, daysInMonth(year, month)));
  }
  if (/\bnext month\b/.test(lower)) {
    const nextYear = month === 12 ? year + 1 : year;
    const nextMonth = month === 12 ? 1 : month + 1;
    return day(
      daysFromCivil(nextYear, nextMonth, 1),
      daysFromCivil(nextYear, nextMonth, daysInMonth(nextYear, nextMonth)),
    );
  }
  const nextDays = /\b(?:next|coming)\s+(\d{1,3})\s+days?\b/.exec(lower);
  if (nextDays) return day(today, today + Number(nextDays[1]));

  const reference = { instant: new Date(clock.wall), timezone: 0 };
  const found = chrono.en.parse(text, reference, { forwardDate: true })[0];
  if (found && (found.start.isCertain('day') || found.start.isCertain('weekday'))) {
    return day(Math.floor(found.start.date().getTime() / MS_PER_DAY));
  }
  return undefined;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  'a couple of': 2,
  'a few': 3,
};

const UNIT_MINUTES: Record<string, number> = {
  m: 1,
  min: 1,
  mins: 1,
  minute: 1,
  minutes: 1,
  h: 60,
  hr: 60,
  hrs: 60,
  hour: 60,
  hours: 60,
  d: 1440,
  day: 1440,
  days: 1440,
  week: 10080,
  weeks: 10080,
};

const HALF_HOUR_AT_END =
  /(?:^|\s)(?:(?:for|by)\s+)?(?:another\s+)?half an hour\s*(?:more|longer)?$/i;
const DURATION_AT_END = new RegExp(
  `(?:^|\\s)(?:(?:for|by)\\s+)?(?:another\\s+)?(\\d+(?:\\.\\d+)?|${Object.keys(NUMBER_WORDS).join('|')})\\s*(${Object.keys(UNIT_MINUTES).join('|')})\\b\\s*(?:more|longer)?$`,
  'i',
);

/** A duration at the end of `text` ("for an hour", "by 10 minutes", "2h"), with where it starts. */
export function readTrailingDuration(text: string): { minutes: number; index: number } | undefined {
  const trimmed = text.trim();
  const half = HALF_HOUR_AT_END.exec(trimmed);
  if (half) return { minutes: 30, index: half.index };
  const match = DURATION_AT_END.exec(trimmed);
  if (!match) return undefined;
  const amountText = match[1]!.toLowerCase();
  const amount = NUMBER_WORDS[amountText] ?? Number(amountText);
  const unit = UNIT_MINUTES[match[2]!.toLowerCase()]!;
  return { minutes: Math.round(amount * unit), index: match.index };
}

/** "until tomorrow 9am" → minutes from now (rounded up), or undefined when no time is found. */
export function minutesUntil(text: string, clock: ZoneNow): number | undefined {
  const reference = { instant: new Date(clock.wall), timezone: 0 };
  const found = chrono.en.parse(text, reference, { forwardDate: true })[0];
  if (!found) return undefined;
  const instant = wallToInstant(found.start.date().getTime(), clock.zone);
  const minutes = Math.ceil((instant - clock.now) / MS_PER_MINUTE);
  return minutes > 0 ? minutes : undefined;
}
