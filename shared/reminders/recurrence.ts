/**
 * RFC 5545 recurrence rules (RRULE) for reminders: validation, and expansion to instants in
 * an IANA zone so that wall time survives daylight-saving changes.
 *
 * Why not the `rrule` package: 2.8.1 resolves DST gaps and overlaps wrongly when given a
 * `tzid`, and, more seriously here, it cannot be bounded: a rule that never occurs
 * (`FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30`) is scanned day by day to the year 9999 (about 10 s),
 * `FREQ=HOURLY;INTERVAL=6;BYHOUR=3` starting at 00:00 loops forever inside
 * `DateTime.addHours`, and `FREQ=MINUTELY;INTERVAL=90;BYHOUR=9` yields times off the 90-minute
 * lattice. It also always expands from DTSTART, so a minutely rule started a year ago costs
 * seconds per query. The expander below follows the same model (python-dateutil's, which is
 * RFC 5545's): walk the FREQ periods, keep the days and times that pass every BY* part, apply
 * BYSETPOS per period. It jumps straight to the period of interest when COUNT does not force
 * counting from the start, and it gives up after a fixed amount of fruitless scanning.
 *
 * Semantics, in RFC 5545 terms:
 * - The rule is expanded in floating (wall) time from `start`; each wall time is then mapped
 *   to an instant in the zone (see `wallToInstant`): nonexistent times move forward by the
 *   gap, ambiguous times take their first occurrence (RFC 5545 §3.3.5). So an hourly rule
 *   on the fall-back night fires at 00:00, 01:00 (EDT) and 02:00 (EST) and never at 01:00 EST
 *   (like cron: "jobs that fall into the repeated time will not be re-run"); on the
 *   spring-forward night 02:00 becomes 03:00 and merges with the real 03:00. Results are
 *   always strictly increasing instants without duplicates.
 * - `start` is always the first occurrence, and COUNT counts it, as RFC 5545 §3.3.10 says of
 *   DTSTART, even when it does not match the rule.
 * - UNTIL is inclusive. `UNTIL=…Z` is an instant; a floating `UNTIL=19971224T000000` is a wall
 *   time in the reminder's zone; a date `UNTIL=19971224` includes that whole local day.
 * - DTSTART and TZID are rejected inside the rule: a reminder supplies its start (`due`) and its
 *   zone (`timezone`) separately, and two sources of truth would disagree.
 * - Minute resolution: FREQ=SECONDLY is rejected and BYSECOND may only be 0.
 */
import {
  MAX_ZONE_OFFSET_MS,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  isLeapYear,
  isValidZone,
  parseLocalDateTime,
  wallFromParts,
  wallToInstant,
  weekdayOfDay,
} from './local-time';

export type RuleCheck = { ok: true; rrule: string } | { ok: false; message: string };

/** Longest RRULE text accepted. */
export const MAX_RRULE_LENGTH = 512;
/** Most occurrences returned by one query; larger requests are clamped. */
export const MAX_OCCURRENCES = 1000;
/** Largest COUNT accepted. */
export const MAX_COUNT = 100_000;
/** Largest INTERVAL accepted. */
export const MAX_INTERVAL = 1000;
/**
 * How many days (for DAILY and longer frequencies) or periods (for HOURLY and MINUTELY) are
 * scanned without finding an occurrence before the rule is taken never to occur again. 200 000
 * days is about 550 years, longer than the 400-year cycle of the Gregorian calendar, so any
 * date pattern that can occur at all is found; a worst-case scan takes tens of milliseconds.
 * The price: a rule whose real gaps are longer (29 February with INTERVAL=1000) is cut short.
 */
const FRUITLESS_SCAN_LIMIT = 200_000;
/** iCalendar years end at 9999; nothing is expanded past it. */
const END_OF_LAST_YEAR = (daysFromCivil(9999, 12, 31) + 1) * 86_400_000;

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

const FREQUENCIES = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY'] as const;
type Frequency = (typeof FREQUENCIES)[number];
const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** A BYDAY entry: a weekday (Monday = 0), optionally the nth (negative: from the end) of its month or year. */
interface WeekdaySpec {
  weekday: number;
  nth?: number;
}

type Until =
  { kind: 'instant'; at: number; text: string } | { kind: 'wall'; at: number; text: string };

/** A checked rule. Lists are deduplicated; an empty list means the part is absent. */
interface Rule {
  freq: Frequency;
  interval: number;
  count?: number;
  until?: Until;
  byMonth: number[];
  byWeekNo: number[];
  byYearDay: number[];
  byMonthDay: number[];
  byDay: WeekdaySpec[];
  byHour: number[];
  byMinute: number[];
  bySecond: number[];
  bySetPos: number[];
  wkst: number;
}

/** Thrown by the expanding functions when handed a rule, start or zone that does not check out. */
export class RecurrenceInputError extends Error {
  override readonly name = 'RecurrenceInputError';
}

type ParseResult = { ok: true; rule: Rule } | { ok: false; message: string };

/**
 * Checks an RRULE, with or without the `RRULE:` prefix, and returns it normalised: upper case,
 * parts in a fixed order, INTERVAL=1 and WKST=MO dropped. Messages name the offending part.
 * Also rejects rules whose day pattern can never occur (`FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`).
 * Never throws.
 */
export function validateRrule(text: string): RuleCheck {
  const parsed = parseRule(text);
  if (!parsed.ok) return parsed;
  if (!dayPatternCanOccur(parsed.rule)) {
    return { ok: false, message: 'RRULE never occurs: no date matches all of its BY parts' };
  }
  return { ok: true, rrule: formatRule(parsed.rule) };
}

/**
 * The first `n` occurrences strictly after `after` (epoch ms), as epoch ms, strictly increasing.
 * `rule.start` is the local wall time of the first occurrence (`YYYY-MM-DDTHH:mm`) in `zone`.
 * `n` is clamped to 0…{@link MAX_OCCURRENCES}. Returns fewer (or none) when the rule ends, or
 * when no further occurrence exists within the scan limit.
 * @throws RecurrenceInputError when the rule, start or zone is invalid (check them first with
 *   `validateRrule`, `parseLocalDateTime` and `isValidZone`).
 */
export function nextOccurrences(
  rule: { rrule: string; start: string },
  after: number,
  zone: string,
  n: number,
): number[] {
  const limit = clampCount(n);
  if (limit === 0) return [];
  return collect(prepare(rule, zone), after, Number.POSITIVE_INFINITY, limit);
}

/**
 * Occurrences in `(after, through]` (epoch ms), at most `limit` (clamped to
 * {@link MAX_OCCURRENCES}), strictly increasing.
 * @throws RecurrenceInputError as {@link nextOccurrences}.
 */
export function occurrencesBetween(
  rule: { rrule: string; start: string },
  after: number,
  through: number,
  zone: string,
  limit: number,
): number[] {
  const max = clampCount(limit);
  if (max === 0 || through <= after) return [];
  return collect(prepare(rule, zone), after, through, max);
}

/**
 * The latest occurrence at or before `atOrBefore` (epoch ms), or undefined when there is none.
 * This is what a scheduler needs to catch up once after downtime.
 * @throws RecurrenceInputError as {@link nextOccurrences}.
 */
export function previousOccurrence(
  rule: { rrule: string; start: string },
  atOrBefore: number,
  zone: string,
): number | undefined {
  const prepared = prepare(rule, zone);
  if (prepared.rule.count !== undefined) {
    // COUNT is counted from the start, so the walk starts there anyway; it is bounded by MAX_COUNT.
    return latestIn(prepared, prepared.start, atOrBefore);
  }
  // Look back over a growing window, so a dense rule costs little and a sparse one still ends.
  for (let window = 2 * MS_PER_DAY; ; window *= 2) {
    const fromWall = atOrBefore - MAX_ZONE_OFFSET_MS - window;
    const found = latestIn(prepared, fromWall, atOrBefore);
    if (found !== undefined || fromWall <= prepared.start) return found;
  }
}

function latestIn(prepared: Prepared, fromWall: number, atOrBefore: number): number | undefined {
  let latest: number | undefined;
  const stopWall = atOrBefore + MAX_ZONE_OFFSET_MS;
  for (const wall of expandWalls(prepared, fromWall, stopWall)) {
    const instant = wallToInstant(wall, prepared.zone);
    if (instant <= atOrBefore && (latest === undefined || instant > latest)) latest = instant;
  }
  return latest;
}

function clampCount(n: number): number {
  if (Number.isNaN(n)) throw new RecurrenceInputError('occurrence count is not a number');
  return Math.max(0, Math.min(MAX_OCCURRENCES, Math.floor(n)));
}

interface Prepared {
  rule: Rule;
  /** Wall time of the first occurrence. */
  start: number;
  zone: string;
}

function prepare(input: { rrule: string; start: string }, zone: string): Prepared {
  const parsed = parseRule(input.rrule);
  if (!parsed.ok) throw new RecurrenceInputError(parsed.message);
  const start = parseLocalDateTime(input.start);
  if (!start.ok) throw new RecurrenceInputError(`start: ${start.message}`);
  if (!isValidZone(zone)) throw new RecurrenceInputError(`"${zone}" is not an IANA time zone`);
  return { rule: parsed.rule, start: start.wall, zone };
}

/**
 * Instants in `(after, through]`, at most `limit`. Wall times come out of the expander in
 * order, but instants can step back by up to a DST gap (02:30 in a gap maps after 03:00),
 * so a candidate is final only once the wall clock has moved past it by more than any offset.
 */
function collect(prepared: Prepared, after: number, through: number, limit: number): number[] {
  const found: number[] = [];
  const fromWall = after - MAX_ZONE_OFFSET_MS;
  const stopWall = through === Number.POSITIVE_INFINITY ? through : through + MAX_ZONE_OFFSET_MS;
  for (const wall of expandWalls(prepared, fromWall, stopWall)) {
    if (found.length >= limit && wall - MAX_ZONE_OFFSET_MS > found[limit - 1]!) break;
    if (wall < fromWall) continue;
    const instant = wallToInstant(wall, prepared.zone);
    if (instant <= after || instant > through) continue;
    insertSortedUnique(found, instant);
  }
  return found.slice(0, limit);
}

function insertSortedUnique(sorted: number[], value: number): void {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  if (sorted[low] !== value) sorted.splice(low, 0, value);
}

// ---------------------------------------------------------------------------------------------
// Parsing

function parseRule(text: string): ParseResult {
  if (typeof text !== 'string') return { ok: false, message: 'RRULE must be text' };
  if (text.length > MAX_RRULE_LENGTH) {
    return {
      ok: false,
      message: `RRULE is too long (${text.length} characters, at most ${MAX_RRULE_LENGTH})`,
    };
  }
  let body = text.trim();
  if (/^RRULE:/i.test(body)) body = body.slice('RRULE:'.length);
  if (/DTSTART|TZID/i.test(body)) {
    return {
      ok: false,
      message:
        'DTSTART and TZID do not belong in the rule: the reminder supplies its start (due) and timezone',
    };
  }
  if (/[\r\n]/.test(body)) return { ok: false, message: 'RRULE must be a single line' };
  if (body === '') return { ok: false, message: 'RRULE is empty' };

  const seen = new Map<string, string>();
  for (const part of body.replace(/;$/, '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, message: `"${part}" is not a NAME=VALUE part` };
    const name = part.slice(0, eq).trim().toUpperCase();
    const value = part
      .slice(eq + 1)
      .trim()
      .toUpperCase();
    if (!PART_NAMES.has(name)) return { ok: false, message: `unknown part "${name}"` };
    if (seen.has(name)) return { ok: false, message: `${name} is given twice` };
    if (value === '') return { ok: false, message: `${name} has no value` };
    seen.set(name, value);
  }

  const freqText = seen.get('FREQ');
  if (freqText === undefined) return { ok: false, message: 'FREQ is missing' };
  if (freqText === 'SECONDLY') {
    return {
      ok: false,
      message: 'FREQ: SECONDLY is not supported (reminders have minute resolution)',
    };
  }
  if (!(FREQUENCIES as readonly string[]).includes(freqText)) {
    return { ok: false, message: `FREQ: "${freqText}" is not one of ${FREQUENCIES.join(', ')}` };
  }
  const freq = freqText as Frequency;

  const rule: Rule = {
    freq,
    interval: 1,
    byMonth: [],
    byWeekNo: [],
    byYearDay: [],
    byMonthDay: [],
    byDay: [],
    byHour: [],
    byMinute: [],
    bySecond: [],
    bySetPos: [],
    wkst: 0,
  };

  for (const [name, value] of seen) {
    const error = applyPart(rule, name, value);
    if (error !== undefined) return { ok: false, message: error };
  }
  const error = checkCombination(rule);
  return error === undefined ? { ok: true, rule } : { ok: false, message: error };
}

const PART_NAMES = new Set([
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYMONTH',
  'BYWEEKNO',
  'BYYEARDAY',
  'BYMONTHDAY',
  'BYDAY',
  'BYHOUR',
  'BYMINUTE',
  'BYSECOND',
  'BYSETPOS',
  'WKST',
]);

/** Fills one part into `rule`; returns an error message naming the part, or undefined. */
function applyPart(rule: Rule, name: string, value: string): string | undefined {
  switch (name) {
    case 'FREQ':
      return undefined;
    case 'INTERVAL': {
      const interval = positiveInteger(value);
      if (interval === undefined || interval > MAX_INTERVAL) {
        return `INTERVAL: "${value}" must be a whole number from 1 to ${MAX_INTERVAL}`;
      }
      rule.interval = interval;
      return undefined;
    }
    case 'COUNT': {
      const count = positiveInteger(value);
      if (count === undefined || count > MAX_COUNT) {
        return `COUNT: "${value}" must be a whole number from 1 to ${MAX_COUNT}`;
      }
      rule.count = count;
      return undefined;
    }
    case 'UNTIL': {
      const until = parseUntil(value);
      if (until === undefined) {
        return `UNTIL: "${value}" is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS, optionally Z)`;
      }
      rule.until = until;
      return undefined;
    }
    case 'BYMONTH':
      return numberList(value, 'BYMONTH', 'a month', 1, 12, false, (list) => (rule.byMonth = list));
    case 'BYWEEKNO':
      return numberList(
        value,
        'BYWEEKNO',
        'a week number',
        1,
        53,
        true,
        (l) => (rule.byWeekNo = l),
      );
    case 'BYYEARDAY':
      return numberList(
        value,
        'BYYEARDAY',
        'a day of the year',
        1,
        366,
        true,
        (l) => (rule.byYearDay = l),
      );
    case 'BYMONTHDAY':
      return numberList(
        value,
        'BYMONTHDAY',
        'a day of the month',
        1,
        31,
        true,
        (l) => (rule.byMonthDay = l),
      );
    case 'BYHOUR':
      return numberList(value, 'BYHOUR', 'an hour', 0, 23, false, (l) => (rule.byHour = l));
    case 'BYMINUTE':
      return numberList(value, 'BYMINUTE', 'a minute', 0, 59, false, (l) => (rule.byMinute = l));
    case 'BYSECOND':
      return numberList(
        value,
        'BYSECOND',
        'a second',
        0,
        0,
        false,
        (l) => (rule.bySecond = l),
        'reminders have minute resolution, so only 0 is allowed',
      );
    case 'BYSETPOS':
      return numberList(value, 'BYSETPOS', 'a position', 1, 366, true, (l) => (rule.bySetPos = l));
    case 'BYDAY': {
      const specs: WeekdaySpec[] = [];
      for (const item of value.split(',')) {
        const match = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(item.trim());
        const weekday = match
          ? WEEKDAY_CODES.indexOf(match[2] as (typeof WEEKDAY_CODES)[number])
          : -1;
        if (!match || weekday < 0)
          return `BYDAY: "${item}" is not a weekday (MO, TU, WE, TH, FR, SA, SU, optionally with an ordinal like 1MO or -1FR)`;
        const nth = match[1] === undefined ? undefined : Number(match[1]);
        if (nth !== undefined && (nth === 0 || Math.abs(nth) > 53)) {
          return `BYDAY: "${item}": the ordinal must be from 1 to 53 or -53 to -1`;
        }
        if (!specs.some((s) => s.weekday === weekday && s.nth === nth)) {
          specs.push(nth === undefined ? { weekday } : { weekday, nth });
        }
      }
      rule.byDay = specs;
      return undefined;
    }
    case 'WKST': {
      const weekday = WEEKDAY_CODES.indexOf(value as (typeof WEEKDAY_CODES)[number]);
      if (weekday < 0) return `WKST: "${value}" is not a weekday (MO … SU)`;
      rule.wkst = weekday;
      return undefined;
    }
    default:
      return `unknown part "${name}"`;
  }
}

/** The combinations RFC 5545 §3.3.10 rules out, plus the ones reminders do not need. */
function checkCombination(rule: Rule): string | undefined {
  const { freq } = rule;
  if (rule.count !== undefined && rule.until !== undefined) {
    return 'COUNT and UNTIL cannot both be set';
  }
  if (rule.byWeekNo.length > 0 && freq !== 'YEARLY') {
    return `BYWEEKNO only applies to FREQ=YEARLY, not ${freq}`;
  }
  if (rule.byYearDay.length > 0 && (freq === 'MONTHLY' || freq === 'WEEKLY' || freq === 'DAILY')) {
    return `BYYEARDAY does not apply to FREQ=${freq}`;
  }
  if (rule.byMonthDay.length > 0 && freq === 'WEEKLY') {
    return 'BYMONTHDAY does not apply to FREQ=WEEKLY';
  }
  const ordinal = rule.byDay.find((spec) => spec.nth !== undefined);
  if (ordinal !== undefined) {
    const code = `${ordinal.nth}${WEEKDAY_CODES[ordinal.weekday]}`;
    if (freq !== 'MONTHLY' && freq !== 'YEARLY') {
      return `BYDAY: "${code}": an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY`;
    }
    if (freq === 'YEARLY' && rule.byWeekNo.length > 0) {
      return `BYDAY: "${code}": an ordinal weekday cannot be combined with BYWEEKNO`;
    }
  }
  const hasOtherBy =
    rule.byMonth.length +
      rule.byWeekNo.length +
      rule.byYearDay.length +
      rule.byMonthDay.length +
      rule.byDay.length +
      rule.byHour.length +
      rule.byMinute.length +
      rule.bySecond.length >
    0;
  if (rule.bySetPos.length > 0 && !hasOtherBy) {
    return 'BYSETPOS needs another BY part (BYDAY, BYMONTHDAY, …) to pick from';
  }
  return undefined;
}

function positiveInteger(text: string): number | undefined {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 ? value : undefined;
}

function numberList(
  value: string,
  part: string,
  what: string,
  min: number,
  max: number,
  signed: boolean,
  assign: (list: number[]) => void,
  hint?: string,
): string | undefined {
  const list: number[] = [];
  for (const item of value.split(',')) {
    const trimmed = item.trim();
    const number = /^[+-]?\d{1,3}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
    const inRange = signed
      ? Math.abs(number) >= min && Math.abs(number) <= max
      : number >= min && number <= max && !trimmed.startsWith('-');
    if (!inRange) {
      const range = signed ? `${min} to ${max} or -${max} to -${min}` : `${min} to ${max}`;
      return `${part}: "${item}" is not ${what} (${hint ?? range})`;
    }
    if (!list.includes(number)) list.push(number);
  }
  assign(list);
  return undefined;
}

function parseUntil(value: string): Until | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (match[4] === undefined) {
    // A date: the whole local day is included.
    return { kind: 'wall', at: wallFromParts(year, month, day, 23, 59), text: value };
  }
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const at = wallFromParts(year, month, day, hour, minute) + second * 1000;
  return { kind: match[7] === 'Z' ? 'instant' : 'wall', at, text: value };
}

function formatRule(rule: Rule): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== undefined) parts.push(`UNTIL=${rule.until.text}`);
  const lists: [string, number[]][] = [
    ['BYMONTH', rule.byMonth],
    ['BYWEEKNO', rule.byWeekNo],
    ['BYYEARDAY', rule.byYearDay],
    ['BYMONTHDAY', rule.byMonthDay],
  ];
  for (const [name, list] of lists) if (list.length > 0) parts.push(`${name}=${list.join(',')}`);
  if (rule.byDay.length > 0) {
    const days = rule.byDay.map((spec) => `${spec.nth ?? ''}${WEEKDAY_CODES[spec.weekday]}`);
    parts.push(`BYDAY=${days.join(',')}`);
  }
  const timeLists: [string, number[]][] = [
    ['BYHOUR', rule.byHour],
    ['BYMINUTE', rule.byMinute],
    ['BYSECOND', rule.bySecond],
    ['BYSETPOS', rule.bySetPos],
  ];
  for (const [name, list] of timeLists)
    if (list.length > 0) parts.push(`${name}=${list.join(',')}`);
  if (rule.wkst !== 0) parts.push(`WKST=${WEEKDAY_CODES[rule.wkst]}`);
  return parts.join(';');
}

// ---------------------------------------------------------------------------------------------
// Expansion in wall time

/** The day filters and times of a rule once RFC 5545's defaults from the start are filled in. */
interface Effective {
  rule: Rule;
  byMonth: number[];
  byMonthDay: number[];
  byDay: WeekdaySpec[];
  /** Sorted hours of day for DAILY and longer; empty for HOURLY/MINUTELY (the period gives the hour). */
  hours: number[];
  /** Sorted minutes for HOURLY and longer; empty for MINUTELY. */
  minutes: number[];
  /** Whether BYDAY ordinals count within the year (YEARLY without BYMONTH) rather than the month. */
  ordinalsInYear: boolean;
}

function effectiveRule(rule: Rule, start: number): Effective {
  const startDay = Math.floor(start / MS_PER_DAY);
  const { month, day } = civilFromDays(startDay);
  const minuteOfDay = Math.round((start - startDay * MS_PER_DAY) / MS_PER_MINUTE);
  let byMonth = rule.byMonth;
  let byMonthDay = rule.byMonthDay;
  let byDay = rule.byDay;
  const noDayPart =
    rule.byWeekNo.length + rule.byYearDay.length + rule.byMonthDay.length + rule.byDay.length === 0;
  if (noDayPart) {
    if (rule.freq === 'YEARLY') {
      if (byMonth.length === 0) byMonth = [month];
      byMonthDay = [day];
    } else if (rule.freq === 'MONTHLY') {
      byMonthDay = [day];
    } else if (rule.freq === 'WEEKLY') {
      byDay = [{ weekday: weekdayOfDay(startDay) }];
    }
  }
  const subDaily = rule.freq === 'HOURLY' || rule.freq === 'MINUTELY';
  const hours = subDaily
    ? []
    : rule.byHour.length > 0
      ? rule.byHour
      : [Math.floor(minuteOfDay / 60)];
  const minutes =
    rule.freq === 'MINUTELY' ? [] : rule.byMinute.length > 0 ? rule.byMinute : [minuteOfDay % 60];
  return {
    rule,
    byMonth,
    byMonthDay,
    byDay,
    hours: [...hours].sort((a, b) => a - b),
    minutes: [...minutes].sort((a, b) => a - b),
    ordinalsInYear: rule.freq === 'YEARLY' && byMonth.length === 0,
  };
}

/**
 * Wall times of the occurrences, ascending and unique: `start` first, then the rule's matches
 * after it. Skips periods before `fromWall` unless COUNT requires counting from the start, and
 * ends at COUNT, UNTIL, the year 9999, a period starting after `stopWall`, or after
 * {@link FRUITLESS_SCAN_LIMIT} days or periods without a match.
 */
function* expandWalls(prepared: Prepared, fromWall: number, stopWall: number): Generator<number> {
  const { rule, start, zone } = prepared;
  const effective = effectiveRule(rule, start);
  let remaining = rule.count ?? Number.POSITIVE_INFINITY;
  const until = rule.until;
  const withinUntil = (wall: number): boolean => {
    if (until === undefined) return true;
    if (until.kind === 'wall') return wall <= until.at;
    return wall - MAX_ZONE_OFFSET_MS <= until.at && wallToInstant(wall, zone) <= until.at;
  };
  const pastUntil = (wall: number): boolean =>
    until !== undefined &&
    (until.kind === 'wall' ? wall > until.at : wall - MAX_ZONE_OFFSET_MS > until.at);

  if (pastUntil(start)) return;
  if (withinUntil(start)) {
    // Counted even when skipped: COUNT includes the start.
    if (start >= fromWall) yield start;
    remaining -= 1;
  }
  const skipTo = rule.count === undefined ? Math.max(start, fromWall) : start;
  let fruitless = 0;
  for (const period of periods(rule, start, skipTo)) {
    if (remaining <= 0 || period.firstWall > stopWall || pastUntil(period.firstWall)) return;
    if (period.firstWall >= END_OF_LAST_YEAR) return;
    const walls = selectPositions(rule.bySetPos, candidates(effective, period));
    fruitless += period.cost;
    for (const wall of walls) {
      if (wall <= start) continue;
      if (pastUntil(wall)) return;
      if (!withinUntil(wall)) continue;
      fruitless = 0;
      yield wall;
      remaining -= 1;
      if (remaining <= 0) return;
    }
    if (fruitless > FRUITLESS_SCAN_LIMIT) return;
  }
}

/**
 * One FREQ period. For DAILY and longer it is a range of days; for HOURLY and MINUTELY a single
 * hour or minute (`firstWall`), with `firstDay === lastDay`.
 */
interface Period {
  firstDay: number;
  lastDay: number;
  firstWall: number;
  /** How much scanning this period cost, for the fruitless-scan limit. */
  cost: number;
}

/**
 * The rule's periods from the one holding `fromWall` (or the last one before it). Because
 * floating time has no DST, period k always starts k × INTERVAL units after the start's period.
 * HOURLY and MINUTELY periods on days (or hours) that cannot match are skipped in one step.
 */
function* periods(rule: Rule, start: number, fromWall: number): Generator<Period> {
  const k = rule.interval;
  const startDay = Math.floor(start / MS_PER_DAY);
  const fromDay = Math.floor(fromWall / MS_PER_DAY);
  switch (rule.freq) {
    case 'YEARLY': {
      const startYear = civilFromDays(startDay).year;
      const skip = Math.max(0, Math.floor((civilFromDays(fromDay).year - startYear) / k));
      for (let year = startYear + skip * k; ; year += k) {
        const firstDay = daysFromCivil(year, 1, 1);
        const lastDay = daysFromCivil(year, 12, 31);
        yield { firstDay, lastDay, firstWall: firstDay * MS_PER_DAY, cost: lastDay - firstDay + 1 };
      }
    }
    case 'MONTHLY': {
      const monthIndex = (day: number): number => {
        const { year, month } = civilFromDays(day);
        return year * 12 + month - 1;
      };
      const startMonth = monthIndex(startDay);
      const skip = Math.max(0, Math.floor((monthIndex(fromDay) - startMonth) / k));
      for (let index = startMonth + skip * k; ; index += k) {
        const year = Math.floor(index / 12);
        const month = (index % 12) + 1;
        const firstDay = daysFromCivil(year, month, 1);
        const lastDay = firstDay + daysInMonth(year, month) - 1;
        yield { firstDay, lastDay, firstWall: firstDay * MS_PER_DAY, cost: lastDay - firstDay + 1 };
      }
    }
    case 'WEEKLY': {
      const startWeek = weekStart(startDay, rule.wkst);
      const skip = Math.max(0, Math.floor((weekStart(fromDay, rule.wkst) - startWeek) / (7 * k)));
      for (let firstDay = startWeek + skip * 7 * k; ; firstDay += 7 * k) {
        yield { firstDay, lastDay: firstDay + 6, firstWall: firstDay * MS_PER_DAY, cost: 7 };
      }
    }
    case 'DAILY': {
      const skip = Math.max(0, Math.floor((fromDay - startDay) / k));
      for (let day = startDay + skip * k; ; day += k) {
        yield { firstDay: day, lastDay: day, firstWall: day * MS_PER_DAY, cost: 1 };
      }
    }
    case 'HOURLY':
    case 'MINUTELY': {
      const unit = (rule.freq === 'HOURLY' ? MS_PER_HOUR : MS_PER_MINUTE) * k;
      const origin = rule.freq === 'HOURLY' ? Math.floor(start / MS_PER_HOUR) * MS_PER_HOUR : start;
      // The first lattice point at or after `wall`.
      const ceilToLattice = (wall: number): number =>
        origin + Math.max(0, Math.ceil((wall - origin) / unit)) * unit;
      let wall = origin + Math.max(0, Math.floor((fromWall - origin) / unit)) * unit;
      for (;;) {
        const day = Math.floor(wall / MS_PER_DAY);
        const hourOfDay = Math.floor((wall - day * MS_PER_DAY) / MS_PER_HOUR);
        if (!subDailyDayMayMatch(rule, day)) {
          yield { firstDay: day, lastDay: day - 1, firstWall: wall, cost: 1 };
          wall = ceilToLattice((day + 1) * MS_PER_DAY);
        } else if (rule.byHour.length > 0 && !rule.byHour.includes(hourOfDay)) {
          yield { firstDay: day, lastDay: day - 1, firstWall: wall, cost: 1 };
          wall = ceilToLattice(Math.floor(wall / MS_PER_HOUR + 1) * MS_PER_HOUR);
        } else {
          yield { firstDay: day, lastDay: day, firstWall: wall, cost: 1 };
          wall += unit;
        }
      }
    }
  }
}

/** Lets HOURLY/MINUTELY skip a whole day that cannot match in one step. */
function subDailyDayMayMatch(rule: Rule, day: number): boolean {
  return dayMatches(effectiveDayFilter(rule), day);
}

const dayFilterCache = new WeakMap<Rule, Effective>();

function effectiveDayFilter(rule: Rule): Effective {
  // Sub-daily rules take no day defaults from the start, so any start gives the same filter.
  let cached = dayFilterCache.get(rule);
  if (cached === undefined) {
    cached = effectiveRule(rule, 0);
    dayFilterCache.set(rule, cached);
  }
  return cached;
}

/** The wall times a period offers, ascending, before BYSETPOS. */
function candidates(effective: Effective, period: Period): number[] {
  const walls: number[] = [];
  const { freq } = effective.rule;
  if (freq === 'HOURLY' || freq === 'MINUTELY') {
    if (period.lastDay < period.firstDay) return walls;
    if (freq === 'MINUTELY') {
      const minute = Math.floor(period.firstWall / MS_PER_MINUTE) % 60;
      const byMinute = effective.rule.byMinute;
      if (byMinute.length === 0 || byMinute.includes(minute)) walls.push(period.firstWall);
      return walls;
    }
    const hourStart = Math.floor(period.firstWall / MS_PER_HOUR) * MS_PER_HOUR;
    for (const minute of effective.minutes) walls.push(hourStart + minute * MS_PER_MINUTE);
    return walls;
  }
  for (let day = period.firstDay; day <= period.lastDay; day++) {
    if (!dayMatches(effective, day)) continue;
    for (const hour of effective.hours) {
      for (const minute of effective.minutes) {
        walls.push(day * MS_PER_DAY + hour * MS_PER_HOUR + minute * MS_PER_MINUTE);
      }
    }
  }
  return walls;
}

function selectPositions(bySetPos: number[], walls: number[]): number[] {
  if (bySetPos.length === 0 || walls.length === 0) return walls;
  const picked = new Set<number>();
  for (const position of bySetPos) {
    const wall = walls[position > 0 ? position - 1 : walls.length + position];
    if (wall !== undefined) picked.add(wall);
  }
  return [...picked].sort((a, b) => a - b);
}

/** Whether a day passes every BY part that limits days (BYMONTH … BYDAY). */
function dayMatches(effective: Effective, day: number): boolean {
  const { rule } = effective;
  const { year, month, day: dayOfMonth } = civilFromDays(day);
  if (effective.byMonth.length > 0 && !effective.byMonth.includes(month)) return false;
  const monthLength = daysInMonth(year, month);
  if (
    effective.byMonthDay.length > 0 &&
    !effective.byMonthDay.includes(dayOfMonth) &&
    !effective.byMonthDay.includes(dayOfMonth - monthLength - 1)
  ) {
    return false;
  }
  const needsDayOfYear = rule.byYearDay.length > 0 || effective.ordinalsInYear;
  const yearLength = isLeapYear(year) ? 366 : 365;
  const dayOfYear = needsDayOfYear ? day - daysFromCivil(year, 1, 1) + 1 : 0;
  if (
    rule.byYearDay.length > 0 &&
    !rule.byYearDay.includes(dayOfYear) &&
    !rule.byYearDay.includes(dayOfYear - yearLength - 1)
  ) {
    return false;
  }
  if (rule.byWeekNo.length > 0 && !weekNumberMatches(rule.byWeekNo, day, rule.wkst)) return false;
  if (effective.byDay.length > 0) {
    const weekday = weekdayOfDay(day);
    const [index, length] = effective.ordinalsInYear
      ? [dayOfYear, yearLength]
      : [dayOfMonth, monthLength];
    const nth = Math.floor((index - 1) / 7) + 1;
    const nthFromEnd = -(Math.floor((length - index) / 7) + 1);
    const matches = effective.byDay.some(
      (spec) =>
        spec.weekday === weekday &&
        (spec.nth === undefined || spec.nth === nth || spec.nth === nthFromEnd),
    );
    if (!matches) return false;
  }
  return true;
}

function weekStart(day: number, wkst: number): number {
  return day - ((weekdayOfDay(day) - wkst + 7) % 7);
}

/** Week 1 of a year is the first week (starting on WKST) with at least four days in that year, i.e. the one holding 4 January. */
function firstWeekStart(year: number, wkst: number): number {
  return weekStart(daysFromCivil(year, 1, 4), wkst);
}

function weekNumberMatches(byWeekNo: number[], day: number, wkst: number): boolean {
  const start = weekStart(day, wkst);
  const { year } = civilFromDays(day);
  let weekYear = year;
  if (start >= firstWeekStart(year + 1, wkst)) weekYear = year + 1;
  else if (start < firstWeekStart(year, wkst)) weekYear = year - 1;
  const first = firstWeekStart(weekYear, wkst);
  const weeks = (firstWeekStart(weekYear + 1, wkst) - first) / 7;
  const week = (start - first) / 7 + 1;
  return byWeekNo.includes(week) || byWeekNo.includes(week - weeks - 1);
}

/**
 * Whether some day can match the rule's day parts at all, whatever the start: the rule is
 * expanded daily (or at its own frequency with INTERVAL=1, so BYSETPOS keeps its meaning) from
 * 2000-01-01 for the fruitless-scan limit, which spans more than the 400-year Gregorian cycle.
 */
function dayPatternCanOccur(rule: Rule): boolean {
  const subDaily = rule.freq === 'HOURLY' || rule.freq === 'MINUTELY';
  const probe: Rule = {
    ...rule,
    freq: subDaily ? 'DAILY' : rule.freq,
    interval: 1,
    count: undefined,
    until: undefined,
    byHour: subDaily ? [] : rule.byHour,
    byMinute: subDaily ? [] : rule.byMinute,
    bySetPos: subDaily ? [] : rule.bySetPos,
  };
  // A start that matches nothing in particular: the first candidate after it proves the pattern.
  const start = wallFromParts(2000, 1, 1, 0, 0);
  const walls = expandWalls({ rule: probe, start, zone: 'UTC' }, start, Number.POSITIVE_INFINITY);
  walls.next(); // the start itself
  return walls.next().done !== true;
}
