/**
 * What a careless LLM does to a faithful answer: one wrong number, name or date in one sentence,
 * the markers left as they were. Used with the fake Ollama server (ollama-server.ts) to measure
 * the claim checker (scripts/eval/claims.ts): the fake answers with the corrupted text.
 */
import { splitClaims } from '../../shared/search/claim-check';

export type InsertedError = 'number' | 'name' | 'date' | 'swapped-number';
/** The errors the targets are about: facts that are not in the passage at all. */
export const INSERTED_ERRORS: readonly InsertedError[] = ['number', 'name', 'date'];
/**
 * A harder kind, measured but not a target: a number that is wrong for this claim but appears
 * elsewhere in the cited passage (the fee for children given as the standard fee).
 */
export const SWAPPED_ERRORS: readonly InsertedError[] = ['swapped-number'];

export interface CorruptedAnswer {
  /** The whole answer with one claim changed. */
  text: string;
  /** That claim as it was, and as it is now (raw, with markers). */
  original: string;
  changed: string;
}

const MONTHS = [
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
const MONTH = MONTHS.join('|');
const DATE_PATTERNS = [
  /\b(\d{4})-(\d{2})-(\d{2})\b/,
  new RegExp(`\\b(\\d{1,2}) (${MONTH})(?: (\\d{4}))?\\b`),
  new RegExp(`\\b(${MONTH}) (\\d{1,2})\\b`),
  new RegExp(`\\b(${MONTH})\\b(?: (\\d{4}))?`),
];
const ALL_DATES = new RegExp(DATE_PATTERNS.map((p) => p.source).join('|'), 'g');
const NUMBER_WORDS = ['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const FAKE_NAMES = [
  'Oliver',
  'Sofia',
  'Dmitri',
  'Fatima',
  'Nakamura',
  'Vienna',
  'Kowalski',
  'Lucas',
];
const NOT_NAMES = new Set(
  [
    'The',
    'This',
    'That',
    'There',
    'You',
    'Your',
    'Yes',
    'No',
    'It',
    'If',
    'On',
    'In',
    'Of',
    'From',
    'For',
    'With',
    'She',
    'He',
    'They',
    'We',
    'A',
    'An',
    'And',
    'Files',
    'Notes',
    'Older',
    'Candidates',
    'Education',
    'Reviewing',
  ].concat(MONTHS),
);

/** One variant per claim that has a fact of `kind`: that claim's first such fact changed. */
export function insertErrors(
  answer: string,
  kind: InsertedError,
  passages: string,
): CorruptedAnswer[] {
  const segments = splitClaims(answer);
  const variants: CorruptedAnswer[] = [];
  segments.forEach((segment, index) => {
    if (!segment.factual) return;
    const changed = corruptClaim(segment.raw, kind, passages, index);
    if (changed === undefined || changed === segment.raw) return;
    const text = segments.map((s, i) => (i === index ? changed : s.raw)).join('');
    variants.push({ text, original: segment.raw, changed });
  });
  return variants;
}

function corruptClaim(
  raw: string,
  kind: InsertedError,
  passages: string,
  seed: number,
): string | undefined {
  // Markers are not facts: hide them (same length) so nothing inside them is changed.
  const masked = raw.replace(/\[[\d, ]+\]/g, (m) => '#'.repeat(m.length));
  if (kind === 'date') return corruptDate(raw, masked);
  if (kind === 'swapped-number') {
    return swapNumber(
      raw,
      masked.replace(ALL_DATES, (m) => '#'.repeat(m.length)),
      passages,
    );
  }
  if (kind === 'number')
    return corruptNumber(
      raw,
      masked.replace(ALL_DATES, (m) => '#'.repeat(m.length)),
      passages,
    );
  return corruptName(raw, masked, passages, seed);
}

function splice(raw: string, start: number, length: number, replacement: string): string {
  return raw.slice(0, start) + replacement + raw.slice(start + length);
}

function corruptDate(raw: string, masked: string): string | undefined {
  const [iso, dayMonth, monthDay, monthOnly] = DATE_PATTERNS;
  let m = iso?.exec(masked);
  if (m) {
    const day = Number(m[3]);
    const next = String(day > 25 ? day - 3 : day + 3).padStart(2, '0');
    return splice(raw, m.index, m[0].length, `${m[1]}-${m[2]}-${next}`);
  }
  m = dayMonth?.exec(masked);
  if (m) {
    const day = Number(m[1]);
    return splice(raw, m.index, (m[1] ?? '').length, String(day > 25 ? day - 3 : day + 3));
  }
  m = monthDay?.exec(masked);
  if (m) {
    const day = Number(m[2]);
    const at = m.index + m[0].length - (m[2] ?? '').length;
    return splice(raw, at, (m[2] ?? '').length, String(day > 25 ? day - 3 : day + 3));
  }
  m = monthOnly?.exec(masked);
  if (m) {
    const month = MONTHS.indexOf(m[1] ?? '');
    return splice(raw, m.index, (m[1] ?? '').length, MONTHS[(month + 5) % 12] ?? 'March');
  }
  return undefined;
}

function corruptNumber(raw: string, masked: string, passages: string): string | undefined {
  const m = /(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?/.exec(masked);
  if (m) {
    const value = Number((m[1] ?? '').replace(/,/g, ''));
    let next = value < 10 ? value + 2 : value + Math.max(1, Math.round(value * 0.3));
    while (new RegExp(`(^|[^\\d,.])${next}([^\\d]|$)`).test(passages)) next++;
    const shown = (m[1] ?? '').includes(',') ? next.toLocaleString('en-US') : String(next);
    return splice(raw, m.index, (m[1] ?? '').length, shown);
  }
  const word = new RegExp(`\\b(${NUMBER_WORDS.join('|')})\\b`, 'i').exec(masked);
  if (word) {
    const index = NUMBER_WORDS.indexOf((word[1] ?? '').toLowerCase());
    return splice(
      raw,
      word.index,
      (word[1] ?? '').length,
      NUMBER_WORDS[(index + 3) % NUMBER_WORDS.length] ?? 'nine',
    );
  }
  return undefined;
}

function corruptName(
  raw: string,
  masked: string,
  passages: string,
  seed: number,
): string | undefined {
  for (const m of masked.matchAll(/\p{Lu}[\p{L}\p{M}]{2,}/gu)) {
    const word = m[0];
    if (NOT_NAMES.has(word) || !new RegExp(`\\b${word}\\b`, 'u').test(passages)) continue;
    const names = FAKE_NAMES.filter((name) => !passages.includes(name));
    const replacement = names[seed % names.length] ?? 'Oliver';
    return splice(raw, m.index, word.length, replacement);
  }
  return undefined;
}

/** The claim's first number replaced by another number of the passages (not a date's). */
function swapNumber(raw: string, masked: string, passages: string): string | undefined {
  const m = /(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?/.exec(masked);
  if (!m) return undefined;
  const others = [...passages.replace(ALL_DATES, ' ').matchAll(/\d{1,3}(?:,\d{3})+|\d+/g)]
    .map((n) => n[0])
    .filter((n) => n.replace(/,/g, '') !== (m[1] ?? '').replace(/,/g, ''));
  const other = others[0];
  return other === undefined ? undefined : splice(raw, m.index, (m[1] ?? '').length, other);
}
