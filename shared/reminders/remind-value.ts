/**
 * What the text inside `@remind(...)` means. Four kinds:
 * - `once`: an absolute local date and time, `YYYY-MM-DD HH:mm` (a `T` may separate them, the
 *   hour may have one digit), optionally followed by an IANA zone; without one, the default
 *   zone (the vault's) applies;
 * - `recurring`: an `every …` phrase (see every-phrase.ts) or a raw `RRULE:…` (or `FREQ=…`),
 *   optionally followed by a zone; DTSTART is {@link INLINE_RECURRENCE_START}, so the rule must
 *   fix its own time of day and cannot use COUNT;
 * - `natural`: anything else chrono-node reads whole ("tomorrow 5pm"), and a bare date
 *   (`2026-11-23`, which needs a time of day): valid only while typing, the plugin normalises it
 *   to the absolute form and the companion reports it unresolved;
 * - `invalid`, with a reason naming what is wrong ("month 13 does not exist").
 * Never throws.
 */
import { canonicalZone, isKnownZone } from './known-zone';
import { parseEveryPhrase } from './every-phrase';
import { MONTH_NAMES, daysInMonth, formatWall, wallFromParts } from './local-time';
import { readsAsNaturalTime, splitTrailingZone } from './natural-time';
import { validateRrule } from './recurrence';
import { INLINE_RECURRENCE_START } from './reminder-schedule';

/** Longest inner text read; longer text is reported, not parsed. */
export const MAX_REMIND_TEXT_LENGTH = 300;

export type RemindValue =
  | {
      kind: 'once';
      /** Wall time `YYYY-MM-DDTHH:mm`. */
      start: string;
      zone: string;
      /** Whether the zone was written in the token (else it is the default). */
      zoneWritten: boolean;
    }
  | {
      kind: 'recurring';
      rrule: string;
      start: string;
      zone: string;
      zoneWritten: boolean;
      form: 'every' | 'rrule';
    }
  | { kind: 'natural'; text: string }
  /** `field: 'zone'` when the zone is what is wrong. */
  | { kind: 'invalid'; reason: string; field?: 'zone' };

const DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:\s+|T)(\d{1,2}):(\d{2}))?$/;
const LOOKS_LIKE_DATE = /^\d{4}-\d{1,2}-\d{1,2}\b/;
// Control characters other than tab; a token holding one was pasted from somewhere odd.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/**
 * Classification is a pure function of the text and the zone, and vaults repeat the same few
 * (`every monday 09:00`), so answers are remembered; they are frozen because they are shared.
 */
const memory = new Map<string, RemindValue>();
const MEMORY_LIMIT = 5000;

/** Classifies the inner text of a token (untrimmed is fine). */
export function classifyRemindText(inner: string, defaultZone: string): RemindValue {
  if (typeof inner !== 'string') return { kind: 'invalid', reason: 'not text' };
  if (inner.length > MAX_REMIND_TEXT_LENGTH || typeof defaultZone !== 'string') {
    return classify(inner, defaultZone);
  }
  const key = `${defaultZone}\u0000${inner}`;
  let value = memory.get(key);
  if (value === undefined) {
    if (memory.size >= MEMORY_LIMIT) memory.clear();
    value = Object.freeze(classify(inner, defaultZone));
    memory.set(key, value);
  }
  return value;
}

function classify(inner: string, defaultZone: string): RemindValue {
  if (inner.length > MAX_REMIND_TEXT_LENGTH) {
    return {
      kind: 'invalid',
      reason: `too long (${inner.length} characters; at most ${MAX_REMIND_TEXT_LENGTH})`,
    };
  }
  const control = CONTROL_CHARACTER.exec(inner);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return { kind: 'invalid', reason: `contains a control character (U+${code})` };
  }
  const text = inner.trim().replace(/\s+/g, ' ');
  if (text === '') {
    return {
      kind: 'invalid',
      reason: 'empty: write a time like 2026-11-23 17:00, every monday 09:00 or tomorrow 5pm',
    };
  }

  const { body, zone: writtenZone } = splitTrailingZone(text);
  if (writtenZone !== undefined && !isKnownZone(writtenZone)) {
    return {
      kind: 'invalid',
      reason: `unknown time zone "${writtenZone}" (use an IANA name like Europe/Berlin)`,
      field: 'zone',
    };
  }
  if (writtenZone === undefined && !isKnownZone(defaultZone)) {
    return {
      kind: 'invalid',
      reason: `unknown default time zone "${defaultZone}"`,
      field: 'zone',
    };
  }
  const zone =
    writtenZone === undefined ? defaultZone : (canonicalZone(writtenZone) ?? writtenZone);
  const zoneWritten = writtenZone !== undefined;

  if (/^every\b/i.test(body)) {
    const every = parseEveryPhrase(body);
    if (!every.ok) return { kind: 'invalid', reason: every.message };
    return recurring(every.rrule, zone, zoneWritten, 'every');
  }
  if (/^(?:RRULE:|FREQ=)/i.test(body)) return readRawRule(body, zone, zoneWritten);

  const dateTime = DATE_TIME.exec(body);
  if (dateTime) {
    const checked = checkDate(dateTime);
    if (checked !== undefined) return { kind: 'invalid', reason: checked };
    if (dateTime[4] === undefined) return { kind: 'natural', text };
    const [year, month, day, hour, minute] = dateTime.slice(1, 6).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    return { kind: 'once', start: wallText(year, month, day, hour, minute), zone, zoneWritten };
  }
  if (LOOKS_LIKE_DATE.test(body)) {
    const checked = checkDate(/^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(body)!);
    if (checked !== undefined) return { kind: 'invalid', reason: checked };
  }
  if (readsAsNaturalTime(text)) return { kind: 'natural', text };
  return {
    kind: 'invalid',
    reason:
      'not a time I can read: write 2026-11-23 17:00, every monday 09:00, RRULE:… or words like tomorrow 5pm',
  };
}

/** Reason a `YYYY-MM-DD[ HH:mm]` match is impossible, or undefined when it is a real time. */
function checkDate(match: RegExpExecArray): string | undefined {
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12) return `month ${month} does not exist`;
  if (day < 1 || day > daysInMonth(year, month)) {
    return `${MONTH_NAMES[month - 1]} ${year} has no day ${day}`;
  }
  if (match[4] !== undefined) {
    const hour = Number(match[4]);
    const minute = Number(match[5]);
    if (hour > 23 || minute > 59) {
      return `${match[4]}:${match[5]} is not a time of day (00:00 to 23:59)`;
    }
  }
  return undefined;
}

function readRawRule(body: string, zone: string, zoneWritten: boolean): RemindValue {
  const check = validateRrule(body);
  if (!check.ok) return { kind: 'invalid', reason: check.message };
  const parts = new Map(
    check.rrule.split(';').map((part) => part.split('=') as [string, string | undefined]),
  );
  const freq = parts.get('FREQ');
  if (parts.has('COUNT')) {
    return {
      kind: 'invalid',
      reason: 'COUNT needs a start date, which an inline reminder does not have: use UNTIL',
    };
  }
  if (freq !== 'HOURLY' && freq !== 'MINUTELY' && !parts.has('BYHOUR')) {
    return {
      kind: 'invalid',
      reason: `RRULE needs BYHOUR (and BYMINUTE) in an inline reminder: there is no start to take the time of day from`,
    };
  }
  return recurring(check.rrule, zone, zoneWritten, 'rrule');
}

function recurring(
  rrule: string,
  zone: string,
  zoneWritten: boolean,
  form: 'every' | 'rrule',
): RemindValue {
  return { kind: 'recurring', rrule, start: INLINE_RECURRENCE_START, zone, zoneWritten, form };
}

function wallText(year: number, month: number, day: number, hour: number, minute: number) {
  // Round-trips through wall time so the text is zero-padded the one canonical way.
  return formatWall(wallFromParts(year, month, day, hour, minute)).slice(0, 16);
}
