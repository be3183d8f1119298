/**
 * Reads the time and the title out of a reminder request such as "next Monday at 8 to call the
 * bank" or "to water the plants every monday at 9" (the router has already removed "remind me").
 *
 * Time zone: chrono-node ignores IANA zones, so it is handed the zone's wall clock as if it were
 * UTC (reference instant = wall time, offset 0). Its results are then wall times in the user's
 * zone, written as `YYYY-MM-DDTHH:mm` next to `timezone`, and the reminder writer maps them to
 * instants across DST. Durations in minutes or hours ("in 2 hours") are exact elapsed time, so
 * they are added to the real instant instead.
 *
 * Rules, in order:
 * 1. `every …` (or `each …`): the longest run of words that `parseEveryPhrase` accepts is the
 *    repeat rule; `due` is its first occurrence after now. A rule with no time of day borrows a
 *    time said elsewhere ("at 9 every monday").
 * 2. Otherwise calendar dates chrono misreads are read first (date-words.ts: `24.12.`,
 *    `24/12`, `2026-12-24`, month names in English, German, French, Spanish and Italian, "on
 *    the 15th"); a date that does not exist is refused with a question that does not repeat it.
 *    Then chrono, for the rest. A date from one phrase and a time from another are combined
 *    ("tomorrow … at 5pm"). A date with no time of day is refused with a question (no silent
 *    09:00), except: parts of the day (`tonight`, `this evening`, `tomorrow morning` = 09:00)
 *    and elapsed durations (`in 3 days`, `a week from now`, which keep the current time of day).
 * 3. A time of day without a day ("at 9") is the next such time: today if it is still to
 *    come, else tomorrow. A bare hour is read on the 24-hour clock ("at 9" is 09:00, never
 *    silently 21:00); the reply names the day. A date without a year that has passed is next
 *    year's ("on the 15th": next month's).
 * 4. A time in the past (a year or "yesterday" said) is refused.
 * A bare hour with no am/pm is a guess either way: the result says so in `ambiguous` ("at 5"
 * read as 05:00), for callers that confirm before writing (the command line asks on a terminal).
 * The title is what remains once the time phrases are removed, with connecting words ("to",
 * "about", "that", a dangling "at"/"on") trimmed and the first letter capitalised.
 */
import * as chrono from 'chrono-node';
import { parseEveryPhrase } from '../reminders/every-phrase';
import { nextOccurrences } from '../reminders/recurrence';
import { instantToWall } from '../reminders/local-time';
import { findDate, laterDate, type Span } from './date-words';
import { formatWallMinute, MS_PER_MINUTE, type ZoneNow } from './zone-calendar';

/** "remind me to", "reminder:", "new reminder:" before the phrase itself (the phone page, the CLI). */
export const REMINDER_OPENER = /^\s*(?:remind me(?: to)?|reminder\s*:|new reminder\s*:?)\s*/i;

export type ReminderPhrase =
  | { ok: true; title: string; due: string; repeat?: string; ambiguous?: string }
  /** `missingTime`: no time of day was said at all, so the reply asks for one. */
  | { ok: false; reply: string; missingTime?: true };

/** Longest `every …` phrase tried, in words after `every`. */
const MAX_EVERY_WORDS = 12;
const MORNING_HOUR = 9;

export function parseReminderPhrase(text: string, clock: ZoneNow): ReminderPhrase {
  const every = findEveryPhrase(text, clock);
  if (every !== undefined) {
    if (!every.ok) return every;
    const title = cleanTitle(removeSpans(text, every.spans));
    if (title === '') return askWhat();
    return {
      ok: true,
      title,
      due: every.due,
      repeat: every.rrule,
      ...(every.ambiguous === undefined ? {} : { ambiguous: every.ambiguous }),
    };
  }

  const when = findTime(text, clock);
  const rest = removeSpans(text, when.spans);
  const title = cleanTitle(rest);
  if (!when.ok) {
    if (title === '') return askWhat();
    // Keep the user's own joining word in the replies: "remind you about taxes", not "to taxes".
    const joiner = /^\s*(about|of|that)\b/i.exec(rest)?.[1]?.toLowerCase() ?? 'to';
    if (when.reason === 'impossible') {
      return {
        ok: false,
        reply: `That date does not exist: ${when.said}. On which day should I remind you ${joiner} ${lowerFirst(title)}?`,
      };
    }
    return when.reason === 'past'
      ? {
          ok: false,
          reply: `"${when.said}" is in the past. When should I remind you ${joiner} ${lowerFirst(title)}?`,
        }
      : {
          ok: false,
          missingTime: true,
          reply:
            when.reason === 'no-time-of-day'
              ? `At what time ${when.said}? For example: "remind me ${when.said} at 9 ${joiner} ${lowerFirst(title)}".`
              : `When should I remind you ${joiner} ${lowerFirst(title)}? For example: "remind me tomorrow at 9 ${joiner} ${lowerFirst(title)}".`,
        };
  }
  if (title === '') return askWhat();
  return {
    ok: true,
    title,
    due: formatWallMinute(when.wall),
    ...(when.ambiguous === undefined ? {} : { ambiguous: when.ambiguous }),
  };
}

function askWhat(): ReminderPhrase {
  return {
    ok: false,
    reply: 'What should I remind you of? For example: "remind me tomorrow at 9 to call the bank".',
  };
}

type EveryFound =
  | { ok: true; rrule: string; due: string; spans: Span[]; ambiguous?: string }
  | { ok: false; reply: string };

function findEveryPhrase(text: string, clock: ZoneNow): EveryFound | undefined {
  const match = /\b(?:every|each)\b/i.exec(text);
  if (!match) return undefined;
  const start = match.index;
  const words = [...text.slice(start).matchAll(/\S+/g)];
  const spanEnd = (count: number) => {
    const word = words[count];
    return word === undefined ? text.length : start + word.index + word[0].length;
  };
  const phraseOf = (count: number) =>
    `every ${text.slice(start + match[0].length, spanEnd(count)).replace(/[.,!?;:]+$/, '')}`.trim();

  for (let count = Math.min(words.length - 1, MAX_EVERY_WORDS); count >= 1; count--) {
    const parsed = parseEveryPhrase(phraseOf(count));
    if (parsed.ok) return everyResult(parsed.rrule, [{ start, end: spanEnd(count) }], clock);
  }
  // "at 9 every monday": the time of day sits outside the every-phrase; a bare hour is taken
  // as said (09:00), since a rule has no "today" to prefer the evening of.
  const elsewhere = findTime(removeSpans(text, [{ start, end: text.length }]), clock);
  for (let count = Math.min(words.length - 1, MAX_EVERY_WORDS); count >= 1; count--) {
    if (!elsewhere.ok || !elsewhere.timeOnly) break;
    const time = formatWallMinute(elsewhere.wall).slice(11);
    const parsed = parseEveryPhrase(`${phraseOf(count)} ${time}`);
    if (parsed.ok) {
      const found = everyResult(
        parsed.rrule,
        [{ start, end: spanEnd(count) }, ...elsewhere.spans],
        clock,
      );
      return found.ok && elsewhere.ambiguous !== undefined
        ? { ...found, ambiguous: elsewhere.ambiguous }
        : found;
    }
  }
  // Report on the phrase up to the first word that starts the title ("every day to stretch").
  const stop = words.findIndex(
    (word, index) => index > 0 && /^(?:to|that|about|and|for)$/i.test(word[0]),
  );
  const count = Math.max(1, (stop < 0 ? words.length : stop) - 1);
  const parsed = parseEveryPhrase(phraseOf(Math.min(count, MAX_EVERY_WORDS)));
  const reason = parsed.ok ? 'it does not fit with the rest of the message' : parsed.message;
  return { ok: false, reply: `I could not read the repeat: ${reason}.` };
}

function everyResult(rrule: string, spans: Span[], clock: ZoneNow): EveryFound {
  const start = formatWallMinute(clock.wall - (clock.wall % MS_PER_MINUTE));
  // The first matching day, as if INTERVAL were 1: "every 2 weeks on tuesday" said on a Sunday
  // means this Tuesday, and that first occurrence then anchors the interval.
  // Minutes and hours count from now instead ("every 15 minutes" first fires in 15 minutes).
  const everyPeriod = /^FREQ=(?:MINUTELY|HOURLY)/.test(rrule)
    ? rrule
    : rrule.replace(/;INTERVAL=\d+/, '');
  const [first] = nextOccurrences({ rrule: everyPeriod, start }, clock.now, clock.zone, 1);
  if (first === undefined) return { ok: false, reply: `The repeat ${rrule} never occurs again.` };
  return { ok: true, rrule, due: formatWallMinute(instantToWall(first, clock.zone)), spans };
}

type TimeFound =
  | { ok: true; wall: number; spans: Span[]; timeOnly: boolean; ambiguous?: string }
  | {
      ok: false;
      reason: 'none' | 'no-time-of-day' | 'past' | 'impossible';
      /** What was said; for `impossible`, what is wrong, without the date itself. */
      said: string;
      spans: Span[];
    };

function findTime(text: string, clock: ZoneNow): TimeFound {
  const date = findDate(text, clock.today);
  // chrono reads the rest, with the date blanked out (same length, so spans stay valid).
  const rest =
    date === undefined
      ? text
      : `${text.slice(0, date.span.start)}${' '.repeat(date.span.end - date.span.start)}${text.slice(date.span.end)}`;
  const reference = { instant: new Date(clock.wall), timezone: 0 };
  const results = chrono.en.parse(rest, reference, { forwardDate: true });
  if (results.length === 0 && date === undefined) {
    return { ok: false, reason: 'none', said: '', spans: [] };
  }

  const hasDay = (r: chrono.ParsedResult) =>
    r.start.isCertain('day') || r.start.isCertain('weekday') || isElapsed(r);
  const hasTime = (r: chrono.ParsedResult) =>
    r.start.isCertain('hour') || isPartOfDay(r) || isElapsed(r);
  const chronoDated = results.find(hasDay);
  const timed = results.find(hasTime);
  if (date !== undefined && !date.ok) {
    const spans = [date.span, ...(timed === undefined ? [] : [spanOf(timed)])];
    return { ok: false, reason: 'impossible', said: date.problem, spans };
  }
  const dated: DayPick | undefined =
    date === undefined
      ? chronoDated === undefined
        ? undefined
        : dayPickOf(chronoDated)
      : { year: date.year, month: date.month, day: date.day, span: date.span, said: date.said };
  const spans = [
    ...(dated ? [dated.span] : []),
    ...(timed && !sameSpan(spanOf(timed), dated?.span) ? [spanOf(timed)] : []),
  ];
  const said = dated?.said ?? timed?.text ?? results[0]?.text ?? '';
  if (spans.length === 0 && results[0] !== undefined) spans.push(spanOf(results[0]));

  if (timed === undefined) return { ok: false, reason: 'no-time-of-day', said, spans };

  let wall: number;
  const hour = timeHour(timed);
  const minute = timed.start.get('minute') ?? 0;
  if (timed.tags().has('result/relativeDateAndTime')) {
    // Elapsed time: add to the instant, then read the zone's clock (DST-proof).
    const elapsed = timed.start.date().getTime() - clock.wall;
    wall = instantToWall(clock.now + elapsed, clock.zone);
  } else if (dated === undefined) {
    // A time of day alone: the next such time, today or else tomorrow (rule 3).
    const today = new Date(clock.wall);
    wall = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), hour, minute);
    if (wall <= clock.wall) wall += 86_400_000;
  } else {
    wall = Date.UTC(dated.year, dated.month - 1, dated.day, hour, minute);
  }
  wall -= wall % MS_PER_MINUTE;
  if (wall <= clock.wall && date?.ok && !date.yearSaid) {
    // "on 24.12. at 9" said on 24 December at 10:00 means next year's; "on the 22nd at 9" on
    // the 22nd at 10:30, next month's.
    const later = laterDate(date);
    wall = Date.UTC(later.year, later.month - 1, later.day, hour, minute);
  }
  if (wall <= clock.wall) return { ok: false, reason: 'past', said, spans };
  // "at 5" could be 05:00 or 17:00 (and "at 12" noon or midnight); whichever was taken, say so.
  // An hour said with a leading zero ("05:30") or past 12 is a 24-hour time, not a guess.
  const saidHour = timed.start.get('hour');
  const guessed =
    !timed.tags().has('result/relativeDateAndTime') &&
    timed.start.isCertain('hour') &&
    !timed.start.isCertain('meridiem') &&
    saidHour !== null &&
    saidHour >= 1 &&
    saidHour <= 12 &&
    !/\b0\d(?::[0-5]\d)?\b/.test(timed.text);
  const ambiguous = guessed
    ? `"${timed.text.trim()}" has no am/pm: read as ${formatWallMinute(wall).slice(11)}`
    : undefined;
  return {
    ok: true,
    wall,
    spans,
    timeOnly: dated === undefined,
    ...(ambiguous === undefined ? {} : { ambiguous }),
  };
}

type DayPick = { year: number; month: number; day: number; span: Span; said: string };

function dayPickOf(result: chrono.ParsedResult): DayPick {
  return {
    year: result.start.get('year')!,
    month: result.start.get('month')!,
    day: result.start.get('day')!,
    span: spanOf(result),
    said: result.text,
  };
}

function sameSpan(a: Span, b: Span | undefined): boolean {
  return b !== undefined && a.start === b.start && a.end === b.end;
}

function timeHour(result: chrono.ParsedResult): number {
  if (result.tags().has('casualReference/morning') && !result.start.isCertain('hour')) {
    return MORNING_HOUR;
  }
  return result.start.get('hour') ?? 0;
}

/** "in 3 days", "2 hours from now": an amount of time, not a vague "next week". */
function isElapsed(result: chrono.ParsedResult): boolean {
  return (
    result.tags().has('result/relativeDate') &&
    /^(?:in|within|after)\s|\b(?:from now|later)$/i.test(result.text)
  );
}

function isPartOfDay(result: chrono.ParsedResult): boolean {
  const tags = result.tags();
  return ['tonight', 'morning', 'afternoon', 'evening', 'noon', 'midnight'].some((part) =>
    tags.has(`casualReference/${part}`),
  );
}

function spanOf(result: chrono.ParsedResult): Span {
  return { start: result.index, end: result.index + result.text.length };
}

function removeSpans(text: string, spans: Span[]): string {
  const sorted = [...spans].sort((a, b) => b.start - a.start);
  let out = text;
  for (const { start, end } of sorted) out = `${out.slice(0, start)} ${out.slice(end)}`;
  return out;
}

const LEADING_FILLER = /^(?:(?:to|about|that|of|for|on|at|by|in|and|then|me)\b|[:,;.\-–—])\s*/i;
const TRAILING_FILLER =
  /(?:(?:^|\s)(?:to|at|on|in|by|for|from|and|then|please|thanks)|[\s:,;.\-–—!?])$/i;

/** "  to call the bank " → "Call the bank". */
export function cleanTitle(text: string): string {
  let title = text.replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== title;) {
    previous = title;
    title = title.replace(LEADING_FILLER, '').trim();
    title = title.replace(TRAILING_FILLER, '').trim();
    title = title.replace(/\s+([,;:.!?])/g, '$1');
  }
  return title === '' ? '' : upperFirst(title);
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
