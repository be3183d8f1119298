/**
 * A recurrence rule in words, for people: "every Monday at 08:00", "every 2 weeks on Tuesday
 * at 10:00", "every month on the last day at 09:00". The API's `repeat_text`, chat replies and
 * lists show this; the RRULE itself stays in `repeat` for programs.
 *
 * Times are wall times of the reminder's zone. A rule without BYHOUR takes its time of day from
 * the start (`startWall`, `YYYY-MM-DDTHH:MM`), as the scheduler does. Parts this does not put
 * into words (BYSETPOS, BYWEEKNO, BYYEARDAY, several months…) fall back to "repeats on a
 * custom rule", never to the rule's text.
 */
import { MONTH_NAMES } from './local-time';

const DAY_NAMES: Record<string, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
const WEEK_ORDER = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const UNIT_WORDS: Record<string, [string, string]> = {
  MINUTELY: ['minute', 'minutes'],
  HOURLY: ['hour', 'hours'],
  DAILY: ['day', 'days'],
  WEEKLY: ['week', 'weeks'],
  MONTHLY: ['month', 'months'],
  YEARLY: ['year', 'years'],
};
const ORDINAL_WORDS: Record<number, string> = {
  1: 'first',
  2: 'second',
  3: 'third',
  4: 'fourth',
  5: 'fifth',
  [-1]: 'last',
  [-2]: 'second to last',
};
const ORDINAL_SUFFIXES: Record<number, string> = { 1: 'st', 2: 'nd', 3: 'rd' };
/** Rule parts this module puts into words; any other makes the rule "custom". */
const KNOWN_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'BYDAY',
  'BYHOUR',
  'BYMINUTE',
  'BYSECOND',
  'BYMONTHDAY',
  'BYMONTH',
  'COUNT',
  'UNTIL',
  'WKST',
]);

export const CUSTOM_RULE_TEXT = 'repeats on a custom rule';

/** `rrule` (with or without `RRULE:`) in words; `startWall` supplies a missing time of day. */
export function describeRule(rrule: string, startWall?: string): string {
  const parts = new Map<string, string>();
  for (const part of rrule.replace(/^RRULE:/i, '').split(';')) {
    const [key, value] = part.split('=');
    if (!key || value === undefined) return CUSTOM_RULE_TEXT;
    parts.set(key.toUpperCase(), value.toUpperCase());
  }
  const freq = parts.get('FREQ') ?? '';
  const unit = UNIT_WORDS[freq];
  if (!unit || [...parts.keys()].some((key) => !KNOWN_PARTS.has(key))) return CUSTOM_RULE_TEXT;
  const interval = Number(parts.get('INTERVAL') ?? '1');
  if (!Number.isInteger(interval) || interval < 1) return CUSTOM_RULE_TEXT;

  const days = parts.get('BYDAY')?.split(',') ?? [];
  const monthDays = parts.get('BYMONTHDAY')?.split(',').map(Number) ?? [];
  const months = parts.get('BYMONTH')?.split(',').map(Number) ?? [];
  if (months.length > 1 || monthDays.some((day) => !Number.isInteger(day))) {
    return CUSTOM_RULE_TEXT;
  }

  const every = interval === 1 ? `every ${unit[0]}` : `every ${interval} ${unit[1]}`;
  let head: string;
  if (freq === 'WEEKLY' || (freq === 'DAILY' && days.length > 0)) {
    const plain = days.every((day) => DAY_NAMES[day] !== undefined);
    if (!plain) return CUSTOM_RULE_TEXT;
    const named = weekdaysInWords(days);
    if (days.length === 0) head = every;
    else if (interval === 1) head = `every ${named}`;
    else head = `${every} on ${named}`;
  } else if (freq === 'MONTHLY') {
    const on = monthlyDay(days, monthDays);
    if (on === undefined) return CUSTOM_RULE_TEXT;
    head = on === '' ? every : `${every} on ${on}`;
  } else if (freq === 'YEARLY') {
    const month = months[0];
    const day = monthDays[0];
    if (days.length > 0 || monthDays.length > 1) return CUSTOM_RULE_TEXT;
    if (month !== undefined && (month < 1 || month > 12)) return CUSTOM_RULE_TEXT;
    const monthName = month === undefined ? undefined : MONTH_NAMES[month - 1];
    head =
      monthName === undefined
        ? every
        : day === undefined
          ? `${every} in ${monthName}`
          : `${every} on ${day === -1 ? `the last day of ${monthName}` : `${day} ${monthName}`}`;
  } else {
    if (days.length > 0 || monthDays.length > 0 || months.length > 0) return CUSTOM_RULE_TEXT;
    head = every;
  }

  const time = timeOfDay(freq, parts, startWall);
  if (time === null) return CUSTOM_RULE_TEXT;
  const tail: string[] = [];
  const count = parts.get('COUNT');
  if (count !== undefined) tail.push(count === '1' ? 'once' : `${count} times`);
  const until = parts.get('UNTIL');
  if (until !== undefined) {
    const date = /^(\d{4})(\d{2})(\d{2})/.exec(until);
    if (!date) return CUSTOM_RULE_TEXT;
    tail.push(`until ${date[1]}-${date[2]}-${date[3]}`);
  }
  return [`${head}${time}`, ...tail].join(', ');
}

function weekdaysInWords(days: readonly string[]): string {
  const set = new Set(days);
  if (set.size === 5 && ['MO', 'TU', 'WE', 'TH', 'FR'].every((day) => set.has(day))) {
    return 'weekday';
  }
  if (set.size === 2 && set.has('SA') && set.has('SU')) return 'Saturday and Sunday';
  if (set.size === 7) return 'day';
  const names = WEEK_ORDER.filter((day) => set.has(day)).map((day) => DAY_NAMES[day]!);
  return listInWords(names);
}

/** The day of the month a monthly rule names: '' for none, undefined when not in words. */
function monthlyDay(days: readonly string[], monthDays: readonly number[]): string | undefined {
  if (days.length === 0) {
    if (monthDays.length === 0) return '';
    const named = monthDays.map((day) =>
      day === -1 ? 'the last day' : day > 0 && day <= 31 ? `the ${ordinalNumber(day)}` : '',
    );
    if (named.includes('')) return undefined;
    return listInWords(named);
  }
  if (monthDays.length > 0 || days.length !== 1) return undefined;
  const match = /^([+-]?\d)?(MO|TU|WE|TH|FR|SA|SU)$/.exec(days[0]!);
  if (!match) return undefined;
  const ordinal = match[1] === undefined ? undefined : ORDINAL_WORDS[Number(match[1])];
  if (ordinal === undefined) return undefined;
  return `the ${ordinal} ${DAY_NAMES[match[2]!]!}`;
}

/** " at 08:00", " at 08:00 and 18:00", "" for minute and hour rules; null when not in words. */
function timeOfDay(
  freq: string,
  parts: ReadonlyMap<string, string>,
  startWall: string | undefined,
): string | null {
  const hours = parts.get('BYHOUR')?.split(',').map(Number);
  const minutes = parts.get('BYMINUTE')?.split(',').map(Number);
  if (freq === 'MINUTELY') return hours || minutes ? null : '';
  if (freq === 'HOURLY') {
    if (hours) return null;
    if (!minutes) return '';
    return minutes.length === 1 && minutes[0] !== 0 ? ` at ${String(minutes[0])} past` : '';
  }
  const start = startWall === undefined ? undefined : /T(\d{2}):(\d{2})/.exec(startWall);
  const hourList = hours ?? (start ? [Number(start[1])] : undefined);
  const minuteList = minutes ?? (start ? [Number(start[2])] : [0]);
  if (hourList === undefined) return '';
  if (
    [...hourList, ...minuteList].some((value) => !Number.isInteger(value) || value < 0) ||
    hourList.some((hour) => hour > 23) ||
    minuteList.some((minute) => minute > 59)
  ) {
    return null;
  }
  const times: string[] = [];
  for (const hour of hourList) {
    for (const minute of minuteList) times.push(`${pad(hour)}:${pad(minute)}`);
  }
  return ` at ${listInWords(times)}`;
}

function ordinalNumber(day: number): string {
  const tens = day % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (ORDINAL_SUFFIXES[day % 10] ?? 'th');
  return `${day}${suffix}`;
}

function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
