/**
 * Natural-language times ("tomorrow 5pm", "next monday at 8", "in 2 hours", "friday", "5pm")
 * resolved to the absolute `YYYY-MM-DD HH:mm` form of `@remind(...)`, relative to an instant in
 * an IANA zone, without depending on the process time zone.
 *
 * chrono-node's `timezone` option ignores IANA names, and with a fixed-offset reference its
 * weekday logic still follows the process zone ("monday" resolved differently under TZ=UTC and
 * TZ=Pacific/Auckland, tested). So chrono is given a reference Date whose process-local fields
 * are the zone's wall time at `now`: chrono then reasons purely in wall time, and
 * - for calendar phrases ("tomorrow 9am") its date/time components are taken as WALL time and
 *   mapped to an instant with the zone's real rules, so "tomorrow 9am" across a DST change is
 *   still 09:00 local;
 * - for durations ("in 2 hours", tagged `result/relativeDateAndTime` by chrono) the duration
 *   chrono added is added to the real `now` (exactly 2 h, whatever the clocks do), and shown in
 *   the zone's wall time.
 * The one residue of the process zone: if the zone's wall time at `now` does not exist in the
 * process zone (its own DST gap), chrono's "now" is an hour later for that hour.
 *
 * Decisions (documented in the README of this area and tested):
 * - Past times move forward (chrono's `forwardDate`): "5pm" at 18:00 means tomorrow 17:00,
 *   "friday" on a Saturday means next Friday. Text that can only mean the past ("yesterday",
 *   "2 hours ago", a past date) is an error, not silently moved.
 * - Without a time of day ("tomorrow", "friday", "in 3 days", "2026-12-01") the default time
 *   (09:00 unless configured) is used; parts of the day that chrono knows ("tomorrow morning",
 *   "tonight") keep chrono's hours (06:00, 22:00). "today" when the default time has passed is
 *   in the past, and so an error.
 * - Numeric dates with slashes or dots (`5/12`, `05.12.`) are refused as ambiguous: chrono's
 *   English reads them month first, most of the world day first, and a reminder on the wrong
 *   day is worse than a question. A leading "at" is tolerated ("at noon").
 * - A time zone abbreviation chrono knows ("5pm EST") fixes the instant, shown in the zone.
 * - A weekday names the next such day, today included while the time is still ahead ("monday"
 *   at 07:00 on a Monday is today 09:00).
 * - The whole text must be a time: "tomorrow 5pm call mum" is not read (the title belongs
 *   outside the parentheses), so a typo never turns into a wrong reminder.
 * - A trailing IANA zone ("tomorrow 5pm America/New_York") resolves in that zone and is kept in
 *   the output when it differs from the default zone.
 * - English only (chrono's `en`); other languages are future work.
 */
import { canonicalZone, isKnownZone } from './known-zone';
import * as chrono from 'chrono-node';
import { formatWall, instantToWall, wallFromParts, wallToInstant } from './local-time';

/** Longest text handed to chrono; longer text is not a time someone typed. */
export const MAX_NATURAL_TEXT_LENGTH = 200;

export interface NaturalTimeOptions {
  /** The instant "now" refers to (epoch ms). */
  now: number;
  /** Zone the text is read in unless it names its own; the vault's zone. */
  zone: string;
  /** Time of day for date-only phrases, `HH:mm`; default `09:00`. */
  defaultTime?: string;
}

export type NaturalTimeResult =
  | {
      ok: true;
      /** Wall time, `YYYY-MM-DDTHH:mm`. */
      start: string;
      zone: string;
      instant: number;
      /** The absolute `@remind` form: `YYYY-MM-DD HH:mm`, plus ` <zone>` when not the default. */
      text: string;
    }
  | { ok: false; message: string };

const ZONE_WORD = /^(?:UTC|GMT|[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+)$/i;
const CASUAL_PART_OF_DAY =
  /^casualReference\/(?:morning|afternoon|evening|tonight|night|noon|midnight)$/;
const PARSE_OPTIONS = { forwardDate: true };
/** Reference for "is this a time at all?": the answer does not depend on when. */
const FIXED_REFERENCE = new Date(2026, 0, 5, 12, 0, 0, 0);
/** `5/12`, `05.12.2026`: chrono reads month first (US), half the world reads day first. */
const AMBIGUOUS_NUMERIC_DATE = /\b\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?\b/;

/** Splits a trailing IANA-zone-looking word off `text` (it may not be a valid zone). */
export function splitTrailingZone(text: string): { body: string; zone?: string } {
  const trimmed = text.trim();
  const match = /^(.*?)\s+(\S+)$/.exec(trimmed);
  if (match && ZONE_WORD.test(match[2]!)) return { body: match[1]!, zone: match[2]! };
  return { body: trimmed };
}

/** True when chrono reads all of `text` (ignoring a trailing zone) as one date or time. */
export function readsAsNaturalTime(text: string): boolean {
  if (typeof text !== 'string' || text.length > MAX_NATURAL_TEXT_LENGTH) return false;
  const { body } = splitTrailingZone(text);
  if (body === '') return false;
  return wholeMatch(body, FIXED_REFERENCE) !== undefined;
}

/** Resolves natural-language `text` to an absolute time; never throws. */
export function resolveNaturalTime(text: string, options: NaturalTimeOptions): NaturalTimeResult {
  if (typeof text !== 'string') return { ok: false, message: 'a time must be text' };
  if (text.length > MAX_NATURAL_TEXT_LENGTH) {
    return {
      ok: false,
      message: `time text is too long (at most ${MAX_NATURAL_TEXT_LENGTH} characters)`,
    };
  }
  const { now } = options;
  if (!Number.isFinite(now)) return { ok: false, message: '"now" is not a valid instant' };
  if (!isKnownZone(options.zone)) {
    return { ok: false, message: `unknown time zone "${options.zone}"` };
  }
  const defaultTime = readDefaultTime(options.defaultTime ?? '09:00');
  if (defaultTime === undefined) {
    return { ok: false, message: `default time "${options.defaultTime}" is not HH:mm` };
  }
  const { body, zone: writtenZone } = splitTrailingZone(text);
  if (writtenZone !== undefined && !isKnownZone(writtenZone)) {
    return {
      ok: false,
      message: `unknown time zone "${writtenZone}" (use an IANA name like Europe/Berlin)`,
    };
  }
  const zone =
    writtenZone === undefined ? options.zone : (canonicalZone(writtenZone) ?? writtenZone);
  const quoted = text.trim();
  if (body === '') return { ok: false, message: 'no time given' };

  const slashDate = AMBIGUOUS_NUMERIC_DATE.exec(body);
  if (slashDate) {
    return {
      ok: false,
      message: `"${slashDate[0]}" is ambiguous (day/month or month/day?): write 2026-12-05 or dec 5`,
    };
  }
  const reference = wallAsProcessLocal(instantToWall(now, zone));
  const result = wholeMatch(body, reference);
  if (result === undefined) {
    return {
      ok: false,
      message: `"${quoted}" is not a time I can read (try "tomorrow 5pm", "next monday at 8" or "in 2 hours")`,
    };
  }
  if (result.end) {
    return { ok: false, message: `"${quoted}" is a range; a reminder needs one time` };
  }

  const start = result.start;
  const tags = result.tags();
  let instant: number;
  if (tags.has('result/relativeDateAndTime')) {
    // A duration from now: what chrono added to its reference, added to the real now.
    instant = Math.floor((now + start.date().getTime() - reference.getTime()) / 60_000) * 60_000;
  } else if (start.isCertain('timezoneOffset')) {
    // Written with its own offset ("5pm EST"): chrono computed the real instant.
    instant = start.date().getTime();
  } else {
    const hasTime =
      start.isCertain('hour') || [...tags].some((tag) => CASUAL_PART_OF_DAY.test(tag));
    const wall = wallFromParts(
      start.get('year') ?? 0,
      start.get('month') ?? 1,
      start.get('day') ?? 1,
      hasTime ? (start.get('hour') ?? 0) : defaultTime.hour,
      hasTime ? (start.get('minute') ?? 0) : defaultTime.minute,
    );
    instant = wallToInstant(wall, zone);
  }
  const startText = formatWall(instantToWall(instant, zone)).slice(0, 16);
  if (instant <= now) {
    return {
      ok: false,
      message: `"${quoted}" is in the past (${startText.replace('T', ' ')})`,
    };
  }
  const zoneSuffix = zone === options.zone ? '' : ` ${zone}`;
  return {
    ok: true,
    start: startText,
    zone,
    instant,
    text: `${startText.replace('T', ' ')}${zoneSuffix}`,
  };
}

/** A Date whose process-local fields show `wall` (see the header: chrono works in local time). */
function wallAsProcessLocal(wall: number): Date {
  const fields = new Date(wall);
  const local = new Date(2000, 0, 1, 0, 0, 0, 0);
  local.setFullYear(fields.getUTCFullYear(), fields.getUTCMonth(), fields.getUTCDate());
  local.setHours(fields.getUTCHours(), fields.getUTCMinutes(), fields.getUTCSeconds(), 0);
  return local;
}

/** chrono's single result covering all of `body` (a leading "at" may be left out). */
function wholeMatch(body: string, reference: Date): chrono.ParsedResult | undefined {
  const withoutAt = body.replace(/^at\s+/i, '');
  return (
    matchAll(body, reference) ?? (withoutAt === body ? undefined : matchAll(withoutAt, reference))
  );
}

function matchAll(body: string, reference: Date): chrono.ParsedResult | undefined {
  let results: chrono.ParsedResult[];
  try {
    results = chrono.parse(body, reference, PARSE_OPTIONS);
  } catch {
    // chrono is third-party code on arbitrary input; a crash there is "not a time".
    return undefined;
  }
  const [first] = results;
  if (results.length !== 1 || first === undefined) return undefined;
  if (first.index !== 0 || first.text.length !== body.length) return undefined;
  return first;
}

function readDefaultTime(text: string): { hour: number; minute: number } | undefined {
  const match = /^(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  return hour <= 23 && minute <= 59 ? { hour, minute } : undefined;
}
