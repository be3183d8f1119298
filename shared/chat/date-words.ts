/**
 * Calendar dates as people type them into a chat, which chrono-node (English only, month
 * first) misreads or skips: day-first numbers (`24.12.`, `24.12.2026`, `24/12`, `24/12/26`),
 * ISO dates (`2026-12-24`), and month names in English, German, French, Spanish and Italian
 * (`24 December`, `Dec 24, 2026`, `24. Dezember`, `le 1er décembre`, `24 de diciembre de
 * 2026`, `24 dicembre`), plus "on the 15th" (the next 15th).
 *
 * Rules (docs/chat.md):
 * - Numbers with `.` or `/` are day first, always (`05/06` is 5 June): the US order is not read.
 * - Without a year, the date is the next such day, today included; the time of day decides
 *   later whether today is already past (`nextYear` asks for the one after).
 * - A date that does not exist (`2026-02-30`, `31.04.`, `12/24`) is `impossible`, with what
 *   is wrong in words that do not repeat the date.
 */
import { civilFromDays, daysInMonth } from '../reminders/local-time';
import { MONTH_NAMES } from '../reminders/local-time';

export type Span = { start: number; end: number };

export type DateFound =
  | {
      ok: true;
      year: number;
      month: number;
      day: number;
      span: Span;
      said: string;
      /** The year was said; a past date then stays past instead of moving a year on. */
      yearSaid: boolean;
      /** Only a day of the month was said ("on the 15th"): a past one moves a month on. */
      dayOnly: boolean;
    }
  | { ok: false; span: Span; problem: string };

/**
 * Month names and common abbreviations per language, January first; accented words also
 * without their accents. Exported for the phrasing table's test.
 */
export const MONTH_WORDS_BY_LANGUAGE: Readonly<Record<string, readonly string[]>> = {
  en: [
    'january jan',
    'february feb',
    'march mar',
    'april apr',
    'may',
    'june jun',
    'july jul',
    'august aug',
    'september sep sept',
    'october oct',
    'november nov',
    'december dec',
  ],
  de: [
    'januar jänner jaenner',
    'februar',
    'märz maerz mär',
    'april',
    'mai',
    'juni',
    'juli',
    'august',
    'september',
    'oktober okt',
    'november',
    'dezember dez',
  ],
  fr: [
    'janvier janv',
    'février fevrier févr fevr',
    'mars',
    'avril avr',
    'mai',
    'juin',
    'juillet juil',
    'août aout',
    'septembre',
    'octobre',
    'novembre',
    'décembre decembre déc',
  ],
  es: [
    'enero ene',
    'febrero',
    'marzo',
    'abril',
    'mayo',
    'junio',
    'julio',
    'agosto',
    'septiembre setiembre',
    'octubre',
    'noviembre',
    'diciembre dic',
  ],
  it: [
    'gennaio gen',
    'febbraio',
    'marzo',
    'aprile',
    'maggio mag',
    'giugno giu',
    'luglio lug',
    'agosto',
    'settembre',
    'ottobre ott',
    'novembre',
    'dicembre',
  ],
};
const MONTH_WORDS: Record<string, number> = {};
for (const months of Object.values(MONTH_WORDS_BY_LANGUAGE)) {
  months.forEach((words, index) => {
    for (const word of words.split(' ')) MONTH_WORDS[word] = index + 1;
  });
}

const MONTH_ALTERNATION = Object.keys(MONTH_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|');
// Lookbehind is not used (older iOS cannot parse it): every pattern's group 1 is what comes
// before the date (start of text or a separator), and the date starts after it.
const NOT_LETTER_BEFORE = '(^|[^\\p{L}\\d])';
const NOT_LETTER_AFTER = '(?![\\p{L}\\d])';
const DAY_SUFFIX = '(?:st|nd|rd|th|er|re|e|º|°|\\.)?';
const YEAR_AFTER = '(?:,?\\s*(?:de\\s+)?(\\d{4}))?';

/** `24 December`, `24. Dezember`, `1er décembre`, `24 de diciembre de 2026`, `24th of Dec`. */
const DAY_MONTH = new RegExp(
  `${NOT_LETTER_BEFORE}(\\d{1,2})${DAY_SUFFIX}\\s*(?:of\\s+|de\\s+|du\\s+)?(${MONTH_ALTERNATION})\\.?${NOT_LETTER_AFTER}${YEAR_AFTER}`,
  'iu',
);
/** `December 24`, `Dec 24th, 2026`. */
const MONTH_DAY = new RegExp(
  `${NOT_LETTER_BEFORE}(${MONTH_ALTERNATION})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?${NOT_LETTER_AFTER}${YEAR_AFTER}`,
  'iu',
);
/** `2026-12-24`, and the `T` of `2026-12-24T18:00` (the time is left for the time reader). */
const ISO_DATE = /(^|[^\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?:T(?=\d{1,2}:\d{2})|(?![\d-]))/;
/** `24.12.`, `24.12.2026`, `24.12.26`: the trailing dot or a year tells it from `9.30`. */
const DOTTED = /(^|[^\d.:])(\d{1,2})\.(\d{1,2})\.(?:(\d{4}|\d{2})(?![\d.]))?/;
/** `24/12`, `24/12/2026`. */
const SLASHED = /(^|[^\d/])(\d{1,2})\/(\d{1,2})(?:\/(\d{4}|\d{2}))?(?![\d/])/;
/** A word that introduces a date, right before it. */
const ARTICLE_BEFORE = /(^|[^\p{L}\d])(?:am|le|el|il|al|au|the)\s+$/iu;
/** `on the 15th`: the next 15th. */
const DAY_OF_MONTH = new RegExp(
  `(\\b)on the (\\d{1,2})(?:st|nd|rd|th)\\b(?!\\s*(?:of\\s+)?(?:${MONTH_ALTERNATION}))`,
  'iu',
);

/** The first date in `text` that chrono would misread, or undefined. `today` is a day number. */
export function findDate(text: string, today: number): DateFound | undefined {
  const candidates: Array<{ match: RegExpExecArray; read: (m: RegExpExecArray) => Parts }> = [];
  const add = (pattern: RegExp, read: (m: RegExpExecArray) => Parts) => {
    const match = pattern.exec(text);
    if (match) candidates.push({ match, read });
  };
  add(ISO_DATE, (m) => ({ year: m[2], month: Number(m[3]), day: Number(m[4]) }));
  add(DOTTED, (m) => ({ year: m[4], month: Number(m[3]), day: Number(m[2]) }));
  add(SLASHED, (m) => ({ year: m[4], month: Number(m[3]), day: Number(m[2]) }));
  add(DAY_MONTH, (m) => ({ year: m[4], month: monthOf(m[3]!), day: Number(m[2]) }));
  add(MONTH_DAY, (m) => ({ year: m[4], month: monthOf(m[2]!), day: Number(m[3]) }));
  add(DAY_OF_MONTH, (m) => ({ day: Number(m[2]), month: 0, dayOnly: true }));
  if (candidates.length === 0) return undefined;
  const startOf = (match: RegExpExecArray) => match.index + match[1]!.length;
  candidates.sort((a, b) => startOf(a.match) - startOf(b.match));
  const { match, read } = candidates[0]!;
  const span = { start: startOf(match), end: match.index + match[0].length };
  // The little word before a date in the languages read ("am 24.", "le 1er", "el 24", "il
  // 24") belongs to the date, not to the title.
  const article = ARTICLE_BEFORE.exec(text.slice(0, span.start));
  if (article) span.start = article.index + article[1]!.length;
  return resolve(read(match), span, match[0].slice(match[1]!.length).trim(), today);
}

interface Parts {
  year?: string | undefined;
  /** 0 when only a day of the month was said. */
  month: number;
  day: number;
  dayOnly?: boolean;
}

function monthOf(word: string): number {
  return MONTH_WORDS[word.toLowerCase()] ?? 0;
}

function resolve(parts: Parts, span: Span, said: string, today: number): DateFound {
  const now = civilFromDays(today);
  const { month, day } = parts;
  if (parts.dayOnly) {
    if (day < 1 || day > 31) return impossible(span, `no month has a day ${String(day)}`);
    let { year, month: candidate } = now;
    if (day < now.day) candidate += 1;
    for (let tries = 0; tries < 13; tries++, candidate++) {
      if (candidate > 12) {
        candidate = 1;
        year += 1;
      }
      if (day <= daysInMonth(year, candidate)) {
        return {
          ok: true,
          year,
          month: candidate,
          day,
          span,
          said,
          yearSaid: false,
          dayOnly: true,
        };
      }
    }
  }
  if (month < 1 || month > 12) {
    return impossible(span, 'a year has twelve months, and dates are written day first');
  }
  const monthName = MONTH_NAMES[month - 1]!;
  if (parts.year !== undefined) {
    const year = parts.year.length === 2 ? 2000 + Number(parts.year) : Number(parts.year);
    const length = daysInMonth(year, month);
    if (day < 1 || day > length) {
      return impossible(span, `${monthName} ${String(year)} has ${String(length)} days`);
    }
    return { ok: true, year, month, day, span, said, yearSaid: true, dayOnly: false };
  }
  // No year: the next such day, today included; 29 February waits for a leap year.
  const longest = daysInMonth(2024, month);
  if (day < 1 || day > longest) {
    const leap = month === 2 ? ' (29 in a leap year)' : '';
    return impossible(span, `${monthName} has ${String(month === 2 ? 28 : longest)} days${leap}`);
  }
  let year = month < now.month || (month === now.month && day < now.day) ? now.year + 1 : now.year;
  while (day > daysInMonth(year, month)) year += 1;
  return { ok: true, year, month, day, span, said, yearSaid: false, dayOnly: false };
}

function impossible(span: Span, problem: string): DateFound {
  return { ok: false, span, problem };
}

/** The same date a year (or, for "on the 15th", a month) later: for a time already past today. */
export function laterDate(found: Extract<DateFound, { ok: true }>): {
  year: number;
  month: number;
  day: number;
} {
  if (found.dayOnly) {
    let { year, month } = found;
    for (let tries = 0; tries < 13; tries++) {
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
      }
      if (found.day <= daysInMonth(year, month)) return { year, month, day: found.day };
    }
  }
  let year = found.year + 1;
  while (found.day > daysInMonth(year, found.month)) year += 1;
  return { year, month: found.month, day: found.day };
}
