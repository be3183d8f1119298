/**
 * `every …` phrases, as written in `@remind(every monday 09:00)`, turned into RRULEs.
 *
 * The phrase is what follows `every ` (a leading `every` is tolerated):
 *   [<n> | other] <unit> [on <when>] [[at] <time>]
 * - units: `minute(s)`, `hour(s)`, `day(s)`, `week(s)`, `month(s)`, `year(s)`, `weekday(s)`
 *   (Monday to Friday), `weekend(s)`, or weekday names (`monday`, `mon, wed and fri`);
 * - `on`: weekdays for weeks (`every 2 weeks on tuesday`); a day of the month for months
 *   (`on the 1st`, `on the 15`, `on the last day`, `on the first monday`, `on the last friday`);
 *   a date for years (`on 12-25`, `on dec 25`, `on 25 december`);
 * - time: `09:00`, `9:30`, `7pm`, `7:30 am`, `noon`, `midnight`, or a bare hour after `at`
 *   (`at 8`). A time of day is required, except for minutes and hours, where it makes no sense:
 *   `every hour` is on the hour (BYMINUTE=0) and `every 15 minutes` counts from the start.
 * Output is a normalised RRULE with BYHOUR, BYMINUTE and BYSECOND=0 set, so the rule alone fixes
 * the time of day; the start only anchors INTERVAL and the first occurrence. rrule's
 * `RRule.fromText` is not used: it ignores times of day and reads unknown words as nothing.
 */
import { MONTH_NAMES } from './local-time';
import { validateRrule } from './recurrence';

/** Longest phrase read; anything longer is not a recurrence someone typed. */
export const MAX_PHRASE_LENGTH = 200;

/**
 * `needsTimeOfDay` marks a phrase that is complete but for its time of day (`every weekday`), so
 * a caller holding a time (the first occurrence's) can add it and ask again.
 */
export type EveryPhraseResult =
  { ok: true; rrule: string } | { ok: false; message: string; needsTimeOfDay?: true };

const WEEKDAYS: Record<string, string> = {
  monday: 'MO',
  mon: 'MO',
  tuesday: 'TU',
  tue: 'TU',
  tues: 'TU',
  wednesday: 'WE',
  wed: 'WE',
  thursday: 'TH',
  thu: 'TH',
  thur: 'TH',
  thurs: 'TH',
  friday: 'FR',
  fri: 'FR',
  saturday: 'SA',
  sat: 'SA',
  sunday: 'SU',
  sun: 'SU',
};

const MONTHS: Record<string, number> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sep: 9,
  sept: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  last: -1,
};

const UNITS: Record<string, Unit> = {
  minute: 'MINUTELY',
  minutes: 'MINUTELY',
  min: 'MINUTELY',
  mins: 'MINUTELY',
  hour: 'HOURLY',
  hours: 'HOURLY',
  day: 'DAILY',
  days: 'DAILY',
  week: 'WEEKLY',
  weeks: 'WEEKLY',
  month: 'MONTHLY',
  months: 'MONTHLY',
  year: 'YEARLY',
  years: 'YEARLY',
};
type Unit = 'MINUTELY' | 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';

const TIME_AT_END =
  /(?:^|\s)(?:at\s+)?(?:(noon|midnight)|(\d{1,2})(?::(\d{2}))?\s*(am|pm)|(\d{1,2}):(\d{2}))$/;
const BARE_HOUR_AFTER_AT = /(?:^|\s)at\s+(\d{1,2})$/;

type TimeOfDay = { hour: number; minute: number };
type Step<T> = { ok: true; value: T } | { ok: false; message: string; needsTimeOfDay?: true };

const UNIT_HELP =
  'minute, hour, day, week, month, year, weekday, weekend or a weekday name like monday';

/** Reads an `every …` phrase; never throws. Messages quote the word that did not fit. */
export function parseEveryPhrase(phrase: string): EveryPhraseResult {
  if (typeof phrase !== 'string') return { ok: false, message: 'an every-phrase must be text' };
  if (phrase.length > MAX_PHRASE_LENGTH) {
    return {
      ok: false,
      message: `every-phrase is too long (at most ${MAX_PHRASE_LENGTH} characters)`,
    };
  }
  const original = phrase.trim().replace(/\s+/g, ' ');
  const text = original.toLowerCase().replace(/^every\s+/, '');
  if (text === '' || text === 'every') return { ok: false, message: 'nothing follows "every"' };

  const split = splitTime(text);
  if (!split.ok) return split;
  const { head, time } = split.value;
  if (head === '') return { ok: false, message: `"every ${text}": what repeats? (${UNIT_HELP})` };

  const built = buildRule(head, time, `every ${original.replace(/^every\s+/i, '')}`);
  if (!built.ok) return built;
  const check = validateRrule(built.value);
  return check.ok ? { ok: true, rrule: check.rrule } : { ok: false, message: check.message };
}

function splitTime(text: string): Step<{ head: string; time: TimeOfDay | undefined }> {
  const bare = BARE_HOUR_AFTER_AT.exec(text);
  const match = bare ?? TIME_AT_END.exec(text);
  if (!match) return { ok: true, value: { head: text, time: undefined } };
  const head = text.slice(0, match.index).trim();
  const written = match[0].trim();
  let hour: number;
  let minute = 0;
  if (bare) {
    hour = Number(bare[1]);
  } else if (match[1] !== undefined) {
    hour = match[1] === 'noon' ? 12 : 0;
  } else if (match[2] !== undefined) {
    hour = Number(match[2]);
    minute = match[3] === undefined ? 0 : Number(match[3]);
    if (hour < 1 || hour > 12) {
      return { ok: false, message: `time "${written}": with am/pm the hour must be 1 to 12` };
    }
    hour = (hour % 12) + (match[4] === 'pm' ? 12 : 0);
  } else {
    hour = Number(match[5]);
    minute = Number(match[6]);
  }
  if (hour > 23 || minute > 59) {
    return { ok: false, message: `time "${written}" is not a time of day (00:00 to 23:59)` };
  }
  return { ok: true, value: { head, time: { hour, minute } } };
}

function buildRule(head: string, time: TimeOfDay | undefined, quoted: string): Step<string> {
  const words = head.split(' ');
  let interval = 1;
  const first = words[0] ?? '';
  if (/^\d+$/.test(first) || first === 'other') {
    interval = first === 'other' ? 2 : Number(first);
    words.shift();
    if (interval < 1) return { ok: false, message: `"${quoted}": the interval must be at least 1` };
  }
  const onIndex = words.indexOf('on');
  const what = (onIndex < 0 ? words : words.slice(0, onIndex)).join(' ');
  const when = onIndex < 0 ? undefined : words.slice(onIndex + 1).join(' ');
  if (what === '') return { ok: false, message: `"${quoted}": what repeats? (${UNIT_HELP})` };

  const parts: string[] = [];
  let freq: Unit;
  const unit = UNITS[what];
  if (unit !== undefined) {
    freq = unit;
  } else if (what === 'weekday' || what === 'weekdays') {
    freq = 'WEEKLY';
    parts.push('BYDAY=MO,TU,WE,TH,FR');
  } else if (what === 'weekend' || what === 'weekends') {
    freq = 'WEEKLY';
    parts.push('BYDAY=SA,SU');
  } else if (UNITS[words[0] ?? ''] !== undefined) {
    const extra = what.slice((words[0] ?? '').length).trim();
    return {
      ok: false,
      message: `"${quoted}": unexpected "${extra}" (a time of day goes last, e.g. 09:00 or at 8)`,
    };
  } else {
    const days = weekdayList(what);
    if (!days.ok) {
      return { ok: false, message: `"${quoted}": "${days.message}" is not a unit (${UNIT_HELP})` };
    }
    freq = 'WEEKLY';
    parts.push(`BYDAY=${days.value.join(',')}`);
  }

  if (when !== undefined) {
    const on = readOn(freq, parts.length > 0, when, quoted);
    if (!on.ok) return on;
    parts.push(on.value);
  }

  if (freq === 'MINUTELY' || freq === 'HOURLY') {
    if (time !== undefined) {
      const unitName = freq === 'HOURLY' ? 'hours' : 'minutes';
      return {
        ok: false,
        message: `"${quoted}": a time of day does not fit a rule in ${unitName}`,
      };
    }
    parts.push(freq === 'HOURLY' ? 'BYMINUTE=0;BYSECOND=0' : 'BYSECOND=0');
  } else {
    if (time === undefined) {
      return {
        ok: false,
        needsTimeOfDay: true,
        message: `"${quoted}" needs a time of day, e.g. "${quoted} 09:00" or "${quoted} at 7pm"`,
      };
    }
    parts.push(`BYHOUR=${time.hour};BYMINUTE=${time.minute};BYSECOND=0`);
  }
  const intervalPart = interval === 1 ? [] : [`INTERVAL=${interval}`];
  return { ok: true, value: [`FREQ=${freq}`, ...intervalPart, ...parts].join(';') };
}

/** The `on …` clause: which days within the week, month or year. */
function readOn(freq: Unit, hasDays: boolean, when: string, quoted: string): Step<string> {
  if (when === '') return { ok: false, message: `"${quoted}": "on" needs a day after it` };
  if (freq === 'WEEKLY' && !hasDays) {
    const days = weekdayList(when);
    if (!days.ok) return { ok: false, message: `"${quoted}": "${days.message}" is not a weekday` };
    return { ok: true, value: `BYDAY=${days.value.join(',')}` };
  }
  if (freq === 'MONTHLY') return dayOfMonth(when, quoted);
  if (freq === 'YEARLY') return dateOfYear(when, quoted);
  return { ok: false, message: `"${quoted}": "on ${when}" does not fit this rule` };
}

/** `mon, wed and fri` → ['MO', 'WE', 'FR']; on failure the message is the unknown word. */
function weekdayList(text: string): Step<string[]> {
  const codes: string[] = [];
  for (const word of text.split(/\s*(?:,|&|\band\b|\s)\s*/).filter((w) => w !== '')) {
    const code = WEEKDAYS[word] ?? WEEKDAYS[word.replace(/s$/, '')];
    if (code === undefined) return { ok: false, message: word };
    if (!codes.includes(code)) codes.push(code);
  }
  if (codes.length === 0) return { ok: false, message: text };
  return { ok: true, value: codes };
}

/** `the 1st`, `the 15`, `the last day`, `the first monday`, `the last friday`. */
function dayOfMonth(when: string, quoted: string): Step<string> {
  const text = when.replace(/^the\s+/, '').replace(/\s+of the month$/, '');
  if (text === 'last day' || text === 'last') return { ok: true, value: 'BYMONTHDAY=-1' };
  const numbered = /^(\d{1,2})(?:st|nd|rd|th)?(?: day)?$/.exec(text);
  if (numbered) {
    const day = Number(numbered[1]);
    if (day < 1 || day > 31) {
      return { ok: false, message: `"${quoted}": a month has no day ${day}` };
    }
    return { ok: true, value: `BYMONTHDAY=${day}` };
  }
  const nthWeekday = /^(\w+) (\w+)$/.exec(text);
  if (nthWeekday) {
    const ordinal = readOrdinal(nthWeekday[1]!);
    const weekday = WEEKDAYS[nthWeekday[2]!];
    if (ordinal !== undefined && weekday !== undefined) {
      return { ok: true, value: `BYDAY=${ordinal}${weekday}` };
    }
  }
  return {
    ok: false,
    message: `"${quoted}": "on ${when}" is not a day of the month (e.g. "on the 1st", "on the last day", "on the first monday")`,
  };
}

function readOrdinal(word: string): number | undefined {
  const numbered = /^([1-5])(?:st|nd|rd|th)$/.exec(word);
  if (numbered) return Number(numbered[1]);
  return ORDINAL_WORDS[word];
}

/** `12-25`, `dec 25`, `december 25th`, `25 december`, `the 25th of december`. */
function dateOfYear(when: string, quoted: string): Step<string> {
  const text = when.replace(/^the\s+/, '').replace(/\s+of\s+/, ' ');
  let month: number | undefined;
  let day: number | undefined;
  const numeric = /^(\d{1,2})-(\d{1,2})$/.exec(text);
  const nameFirst = /^([a-z]+) (\d{1,2})(?:st|nd|rd|th)?$/.exec(text);
  const dayFirst = /^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)$/.exec(text);
  if (numeric) {
    month = Number(numeric[1]);
    day = Number(numeric[2]);
  } else if (nameFirst) {
    month = MONTHS[nameFirst[1]!];
    day = Number(nameFirst[2]);
  } else if (dayFirst) {
    month = MONTHS[dayFirst[2]!];
    day = Number(dayFirst[1]);
  }
  if (month === undefined || day === undefined || month < 1 || month > 12) {
    return {
      ok: false,
      message: `"${quoted}": "on ${when}" is not a date of the year (e.g. "on 12-25" or "on dec 25")`,
    };
  }
  if (day < 1 || day > MONTH_DAYS[month - 1]!) {
    return { ok: false, message: `"${quoted}": ${MONTH_NAMES[month - 1]} has no day ${day}` };
  }
  return { ok: true, value: `BYMONTH=${month};BYMONTHDAY=${day}` };
}
