/**
 * Checks a phrased answer against the passages it cites (docs/search.md, "Checked claims"). The
 * one place the plugin's chat, the companion's chat, `/v1/chat/completions`, MCP `ask` and
 * `POST /api/v1/answer` decide whether an LLM's sentence is backed by the notes.
 *
 * A claim is a sentence (or a list item) with its `[n]` markers. Each claim is checked against
 * the passages it cites:
 * - hard facts must appear there: every number and amount, every date (a date agrees when its
 *   year, month and day agree with a date of the passage where both say them), every name
 *   (a capitalised word inside the sentence, a code like `wg0`, a month or weekday);
 * - its content words must mostly be there (synonyms and stems count), each weighted by its
 *   rarity: a word no retrieved passage has weighs most, a word of the question nothing;
 * - where the words alone are not enough, an embedding similarity (an injected port, when a model
 *   is loaded) may still find the claim close to a passage.
 * A claim without markers is checked against every passage; when one supports it, its marker is
 * added. Sentences without facts ("Here is what your notes say:") are not claims.
 *
 * Unsupported claims are never kept silently: `checkAnswer` and `ClaimStream` mark them in the text with
 * the reason, or removes them and says so at the end (the user's choice).
 */
import type { Embedder } from '../ports';
import type { AnswerAudit, AuditedClaim, UnsupportedClaimPolicy } from '../protocol/answer-audit';
import type { Citation } from '../protocol/citation';
import { stemWord } from './language';
import { synonymsOf } from './synonyms';
import { QUESTION_WORDS, STOP_WORDS, foldText, tokenize } from './tokenize';

export interface ClaimPassage {
  text: string;
  /** The note's title: the model saw it beside the passage and may name it. */
  title?: string;
}

/** Embedding similarity (cosine, −1..1) of a claim to each passage; optional. */
export interface ClaimSimilarity {
  similarities(claim: string, passages: readonly string[]): Promise<number[]>;
}

export interface ClaimCheckOptions {
  question?: string;
  similarity?: ClaimSimilarity;
  /**
   * Rarity weight (> 0) of a stemmed, folded word, e.g. from the index's document frequencies;
   * default: from the retrieved passages (a word none of them has weighs most).
   */
  rarity?: (stem: string) => number;
  /** Share of weighted content words the cited passages must hold (default 0.6). */
  minCoverage?: number;
  /** Cosine at or above which a claim with too few shared words is still supported (0.8). */
  minSimilarity?: number;
}

/** A piece of the answer text; the pieces, concatenated, are the text. */
export interface ClaimSegment {
  raw: string;
  /** The sentence without markers and Markdown, trimmed. */
  body: string;
  /** Passage numbers its markers name (1-based), in order, without duplicates. */
  citations: number[];
  /** False for whitespace, headings and sentences that state nothing. */
  factual: boolean;
}

export interface CheckedClaim extends AuditedClaim {
  segment: ClaimSegment;
  /** Markers added because the claim cited nothing but this passage supports it. */
  inferred: number[];
}

export interface CheckedAnswer {
  /** The text to show: unsupported claims marked or removed per the policy. */
  text: string;
  claims: CheckedClaim[];
}

const DEFAULT_MIN_COVERAGE = 0.6;
const DEFAULT_MIN_SIMILARITY = 0.8;
/** Below this share of words even a close embedding does not save a claim. */
const SIMILARITY_FLOOR = 0.2;

/** Words about the notes themselves, not facts ("the notes say", "according to passage 2"). */
const META_WORDS = new Set(
  `note notes passage passages source sources say says said mention mentions mentioned
  according based vault found information answer question state states stated write written
  writes also however yes there here following summary`.split(/\s+/),
);

/** Words of amounts and prices: the amount itself is what is checked, as a number. */
const AMOUNT_WORDS = new Set(
  `cost costs costing price priced prices pay pays paid charge charges charged fee fees dollar
  dollars usd euro euros eur pound pounds gbp total amount amounts per each`.split(/\s+/),
);

/**
 * Everyday English words that carry little of a claim: a paraphrase uses them freely ("rather
 * than", "is enough", "made optional"). They weigh `COMMON_WEIGHT` unless a rarity port knows
 * better.
 */
const COMMON_WORDS = new Set(
  `make makes made making take takes took taken get gets got go goes went gone come comes came
  start starts started run runs ran keep keeps kept give gives gave given find finds need needs
  needed use uses used using work works worked allow allows allowed let lets rather enough just
  even still already really quite much many more less least well good better best new old same
  different able whole entire certain own instead via later early late often usually always
  never sometimes again etc thing things way ways lot part put puts place places time times
  stay stays stayed move moves moved turn turns turned show shows showed shown happen happens
  become becomes became remain remains remained include includes included including mean means
  meant done doing seem seems bring brings brought hold holds held around back away along
  within across among toward towards whether though although yet anyway simply directly
  currently available possible required require requires`.split(/\s+/),
);
const COMMON_WEIGHT = 0.3;

/** Capitalised only because they start a sentence: never read as a name. */
const SENTENCE_STARTERS = new Set(
  `also additionally however then first second third next finally otherwise instead yes no
  note please remember make sure keep according based overall both either neither each every
  all none most some many several according in on at for from to by with without after before
  during since until unless if when while once as so thus therefore see check use open go read
  ask try bring take call book visit contact follow select click choose set add put let start
  stop plan`.split(/\s+/),
);

const NUMBER_WORDS: Record<string, number> = {
  zero: 0,
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
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  once: 1,
  twice: 2,
  single: 1,
  double: 2,
  half: 0.5,
  dozen: 12,
};

const MONTHS: Record<string, number> = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
  jan: 1,
  feb: 2,
  apr: 4,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const WEEKDAYS = new Set(
  'monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun'.split(
    ' ',
  ),
);

const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
const SENTENCE_END = /[.!?]+["”’)\]*_]*((?:\s*\[\d+(?:\s*,\s*\d+)*\])*)(?=\s|$)/g;

/** The answer cut into claims and the text between them; concatenating `raw` gives it back. */
export function splitClaims(text: string): ClaimSegment[] {
  const segments: ClaimSegment[] = [];
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    let start = 0;
    for (const match of line.matchAll(SENTENCE_END)) {
      const end = match.index + match[0].length;
      const after = line.slice(end).replace(/^\s+/, '');
      // "e.g. the", "approx. 5": a lower-case continuation is the same sentence.
      if (after !== '' && /^\p{Ll}/u.test(after)) continue;
      const whitespace = /^[ \t]*/.exec(line.slice(end))?.[0] ?? '';
      segments.push(segmentOf(line.slice(start, end + whitespace.length)));
      start = end + whitespace.length;
    }
    if (start < line.length) segments.push(segmentOf(line.slice(start)));
  }
  return segments;
}

function segmentOf(raw: string): ClaimSegment {
  const citations: number[] = [];
  for (const match of raw.matchAll(MARKER)) {
    for (const part of (match[1] ?? '').split(',')) {
      const n = Number(part.trim());
      if (!citations.includes(n)) citations.push(n);
    }
  }
  const body = raw
    .replace(MARKER, '')
    .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)/, '')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
  const heading = /^\s*#{1,6}\s/.test(raw) || /:\s*$/.test(body);
  const factual = !heading && body !== '' && hasFacts(body);
  return { raw, body, citations, factual };
}

function hasFacts(body: string): boolean {
  if (/\d/.test(body)) return true;
  return tokenize(body).some(
    (token) => !STOP_WORDS.has(token) && !QUESTION_WORDS.has(token) && !META_WORDS.has(token),
  );
}

interface DateFact {
  text: string;
  year?: number;
  month?: number;
  day?: number;
}

interface Facts {
  /** `unit`: the stem of the word the number counts ("42 minutes" → minut), when there is one. */
  numbers: Array<{ text: string; value: string; unit?: string }>;
  dates: DateFact[];
  names: string[];
}

const MONTH_NAMES = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');
const ISO_DATE = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g;
const MONTH_DAY = new RegExp(
  `\\b(${MONTH_NAMES})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`,
  'gi',
);
const DAY_MONTH = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_NAMES})\\b\\.?(?:,?\\s+(\\d{4})\\b)?`,
  'gi',
);
const MONTH_YEAR = new RegExp(`\\b(${MONTH_NAMES})\\.?\\s+(\\d{4})\\b`, 'gi');
const MONTH_ALONE = new RegExp(`\\b(${MONTH_NAMES})\\b`, 'g');
const NUMBER = /(^|[^\p{L}\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?/gu;

/** Month name matches count only capitalised ("May", "Jan"), except full names in evidence. */
function isMonthWord(word: string, strict: boolean): boolean {
  const folded = word.toLowerCase();
  if (!(folded in MONTHS)) return false;
  if (/^\p{Lu}/u.test(word)) return true;
  return !strict && folded.length > 3 && folded !== 'may' && folded !== 'march';
}

/** Numbers, dates and names of a text. `strict` (a claim): months only when capitalised. */
function factsOf(text: string, strict: boolean): Facts {
  const dates: DateFact[] = [];
  let rest = text;
  const take = (pattern: RegExp, build: (m: RegExpExecArray) => DateFact | undefined) => {
    rest = rest.replace(pattern, (...args: unknown[]) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      const date = build(m);
      if (date === undefined) return m[0];
      dates.push(date);
      return ' '.repeat(m[0].length);
    });
  };
  take(ISO_DATE, (m) => ({
    text: m[0],
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
  }));
  take(MONTH_DAY, (m) =>
    isMonthWord(m[1] ?? '', strict) && Number(m[2]) <= 31
      ? {
          text: m[0],
          month: MONTHS[(m[1] ?? '').toLowerCase()] ?? 0,
          day: Number(m[2]),
          ...(m[3] === undefined ? {} : { year: Number(m[3]) }),
        }
      : undefined,
  );
  take(DAY_MONTH, (m) =>
    isMonthWord(m[2] ?? '', strict) && Number(m[1]) <= 31
      ? {
          text: m[0],
          day: Number(m[1]),
          month: MONTHS[(m[2] ?? '').toLowerCase()] ?? 0,
          ...(m[3] === undefined ? {} : { year: Number(m[3]) }),
        }
      : undefined,
  );
  take(MONTH_YEAR, (m) =>
    isMonthWord(m[1] ?? '', strict)
      ? { text: m[0], month: MONTHS[(m[1] ?? '').toLowerCase()] ?? 0, year: Number(m[2]) }
      : undefined,
  );
  if (!strict) {
    take(new RegExp(MONTH_ALONE.source, 'gi'), (m) =>
      isMonthWord(m[1] ?? '', false)
        ? { text: m[0], month: MONTHS[(m[1] ?? '').toLowerCase()] ?? 0 }
        : undefined,
    );
  } else {
    take(new RegExp(MONTH_ALONE.source, 'gi'), (m) =>
      isMonthWord(m[1] ?? '', true) && (m[1] ?? '').toLowerCase() !== 'may'
        ? { text: m[0], month: MONTHS[(m[1] ?? '').toLowerCase()] ?? 0 }
        : undefined,
    );
  }
  const numbers: Facts['numbers'] = [];
  for (const match of rest.matchAll(NUMBER)) {
    const whole = (match[2] ?? '').replace(/,/g, '');
    const value = String(Number(match[3] === undefined ? whole : `${whole}.${match[3]}`));
    numbers.push({ text: match[0].slice((match[1] ?? '').length), value });
  }
  if (strict) {
    const units = unitsOf(rest);
    for (const number of numbers) {
      const unit = units.get(number.value);
      if (unit !== undefined) number.unit = unit;
    }
  }
  for (const word of rest.match(/\p{L}+/gu) ?? []) {
    const folded = word.toLowerCase();
    const value = NUMBER_WORDS[folded];
    // "one of", "first": too common in prose to hold a claim to; evidence still counts them.
    if (value === undefined) continue;
    if (strict && (value <= 2 || folded === 'once' || folded === 'single')) continue;
    numbers.push({ text: word, value: String(value) });
  }
  return { numbers, dates, names: strict ? namesOf(rest) : [] };
}

/** Capitalised words inside a sentence, codes with digits, weekdays: what must appear as is. */
function namesOf(text: string): string[] {
  const names: string[] = [];
  const words = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’-]*/gu)];
  words.forEach((match, index) => {
    const word = match[0].replace(/['’]s$/u, '').replace(/[-'’]+$/u, '');
    const folded = foldText(word);
    if (/\p{L}/u.test(word) && /\p{N}/u.test(word)) {
      names.push(word);
      return;
    }
    if (!/^\p{Lu}/u.test(word)) return;
    if (WEEKDAYS.has(folded)) {
      names.push(word);
      return;
    }
    if (STOP_WORDS.has(folded) || QUESTION_WORDS.has(folded) || META_WORDS.has(folded)) return;
    const previous = index === 0 ? '' : text.slice(0, match.index);
    const sentenceStart = index === 0 || /[.!?:]\s*$/.test(previous);
    // A sentence may open with a verb ("Reviewing takes…"); a name rarely ends in -ing.
    if (sentenceStart && (SENTENCE_STARTERS.has(folded) || /ing$/.test(folded))) return;
    names.push(word);
  });
  return names;
}

const WORD_OR_NUMBER = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[\p{L}\p{M}]+/gu;

function wordsAndNumbers(text: string): Array<{ number?: string; stem?: string }> {
  return [...text.replace(/(\d)(\p{L})/gu, '$1 $2').matchAll(WORD_OR_NUMBER)].map((m) => {
    const token = m[0];
    if (/^\d/.test(token)) return { number: String(Number(token.replace(/,/g, ''))) };
    const folded = foldText(token);
    const value = NUMBER_WORDS[folded];
    if (value !== undefined) return { number: String(value) };
    if (STOP_WORDS.has(folded) || AMOUNT_WORDS.has(folded)) return {};
    return { stem: stemWord(folded, 'en') };
  });
}

/**
 * The word each number of a claim counts: the word right after it ("42 minutes", "€40 a month",
 * "38% of users"); none when a verb or a preposition follows ("310 completed", "109 to").
 */
function unitsOf(text: string): Map<string, string> {
  const tokens = [...text.replace(/(\d)(\p{L})/gu, '$1 $2').matchAll(WORD_OR_NUMBER)].map((m) =>
    foldText(m[0]),
  );
  const units = new Map<string, string>();
  tokens.forEach((token, i) => {
    if (!/^\d/.test(token)) return;
    const value = String(Number(token.replace(/,/g, '')));
    if (units.has(value)) return;
    let next = i + 1;
    while (next < tokens.length && UNIT_LINKS.has(tokens[next] ?? '')) next++;
    const word = tokens[next];
    if (word === undefined || /^\d/.test(word) || STOP_WORDS.has(word)) return;
    if (AMOUNT_WORDS.has(word) || COMMON_WORDS.has(word) || word in NUMBER_WORDS) return;
    units.set(value, stemWord(word, 'en'));
  });
  return units;
}

/** Words between a number and what it counts. */
const UNIT_LINKS = new Set(['a', 'an', 'per', 'of', 'each']);

/**
 * The numbers of a text with the words around them: the nearest content word before (within
 * three words: "lease … at €6,800" → year, "fee is €90" → fee) and the word right after
 * ("€6,800 a month" → month), and the stems of all its content words.
 */
export function keyedNumbers(text: string): {
  numbers: Array<{ value: string; before?: string; after?: string }>;
  stems: Set<string>;
} {
  const tokens = wordsAndNumbers(text);
  const numbers: Array<{ value: string; before?: string; after?: string }> = [];
  const stems = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.stem !== undefined) stems.add(token.stem);
    if (token.number === undefined) return;
    const before = tokens
      .slice(Math.max(0, i - 3), i)
      .reverse()
      .find((t) => t.stem !== undefined)?.stem;
    let next = i + 1;
    while (
      next < tokens.length &&
      tokens[next]?.stem === undefined &&
      tokens[next]?.number === undefined
    )
      next++;
    const after = tokens[next]?.stem;
    numbers.push({
      value: token.number,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
  });
  return { numbers, stems };
}

/** Per number of a passage, the stems of the words around it (three either side). */
function numberContexts(text: string): Map<string, Set<string>> {
  const tokens = wordsAndNumbers(text);
  const contexts = new Map<string, Set<string>>();
  tokens.forEach((token, i) => {
    if (token.number === undefined) return;
    const context = contexts.get(token.number) ?? new Set<string>();
    for (const near of tokens.slice(Math.max(0, i - 3), i + 4)) {
      if (near.stem === undefined) continue;
      context.add(near.stem);
      for (const synonym of synonymsOf(near.stem)) context.add(stemWord(synonym, 'en'));
    }
    contexts.set(token.number, context);
  });
  return contexts;
}

interface Evidence {
  /** Stems near each number: "42 minutes" and "180 GB" are different facts. */
  contexts: Map<string, Set<string>>;
  numbers: Set<string>;
  dates: DateFact[];
  months: Set<number>;
  words: Set<string>;
  stems: Set<string>;
}

function evidenceOf(texts: readonly string[]): Evidence {
  const all = texts.join('\n');
  const facts = factsOf(all, false);
  const numbers = new Set(facts.numbers.map((n) => n.value));
  // A year stands for itself ("in 2026"); a day only within its date.
  for (const date of facts.dates) if (date.year !== undefined) numbers.add(String(date.year));
  // "50mb", "10GB": the number and the unit are separate words ("50 MB").
  const words = new Set(tokenize(all.replace(/(\d)(\p{L})/gu, '$1 $2')));
  const stems = new Set<string>();
  for (const word of words) {
    stems.add(stemWord(word, 'en'));
    for (const synonym of synonymsOf(word)) stems.add(stemWord(synonym, 'en'));
  }
  return {
    contexts: numberContexts(all),
    numbers,
    dates: facts.dates,
    months: new Set(facts.dates.map((date) => date.month ?? 0)),
    words,
    stems,
  };
}

function dateAgrees(claim: DateFact, evidence: Evidence): boolean {
  const fieldsMatch = (candidate: DateFact) =>
    (['year', 'month', 'day'] as const).every((field) => {
      const want = claim[field];
      if (want === undefined) return true;
      const have = candidate[field];
      if (have !== undefined) return have === want;
      return field === 'month' ? evidence.months.has(want) : evidence.numbers.has(String(want));
    });
  return evidence.dates.some(
    (candidate) =>
      (claim.month === undefined || candidate.month !== undefined) && fieldsMatch(candidate),
  );
}

function contentStems(
  body: string,
  question: ReadonlySet<string>,
): Array<{ stem: string; word: string }> {
  const stems: Array<{ stem: string; word: string }> = [];
  for (const token of tokenize(body)) {
    if (STOP_WORDS.has(token) || QUESTION_WORDS.has(token) || META_WORDS.has(token)) continue;
    if (AMOUNT_WORDS.has(token)) continue;
    if (/^\d/.test(token) || token.length < 3) continue;
    // Months, weekdays and number words are checked as dates and numbers, not as words.
    if (token in MONTHS || WEEKDAYS.has(token) || token in NUMBER_WORDS) continue;
    const stem = stemWord(token, 'en');
    if (question.has(stem) || stems.some((s) => s.stem === stem)) continue;
    stems.push({ stem, word: token });
  }
  return stems;
}

function hasWord(evidence: Evidence, word: string): boolean {
  const folded = foldText(word);
  return (
    evidence.words.has(folded) ||
    tokenize(word).every(
      (part) => evidence.words.has(part) || evidence.stems.has(stemWord(part, 'en')),
    )
  );
}

interface Verdict {
  supported: boolean;
  why: string;
  /** 0..1, how well: for picking the passage of a claim without markers. */
  strength: number;
}

function passageList(numbers: readonly number[]): string {
  if (numbers.length === 1) return `passage ${numbers[0]}`;
  return `passages ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

/** Checks claims against passages; the result is in the order of `splitClaims(text)`. */
export class ClaimChecker {
  private readonly passageTexts: string[];
  private readonly question: Set<string>;

  constructor(
    private readonly passages: readonly ClaimPassage[],
    private readonly options: ClaimCheckOptions = {},
  ) {
    this.passageTexts = passages.map((p) => (p.title ? `${p.title}\n${p.text}` : p.text));
    this.question = new Set(tokenize(options.question ?? '').map((token) => stemWord(token, 'en')));
  }

  /** Every segment of `text` checked, factual ones as claims. */
  async checkText(text: string): Promise<CheckedClaim[]> {
    const claims: CheckedClaim[] = [];
    for (const segment of splitClaims(text)) {
      if (segment.factual) claims.push(await this.check(segment));
    }
    return claims;
  }

  async check(segment: ClaimSegment): Promise<CheckedClaim> {
    const count = this.passages.length;
    const cited = segment.citations.filter((n) => Number.isInteger(n) && n >= 1 && n <= count);
    const base = { text: segment.body, segment };
    if (cited.length > 0) {
      const verdict = await this.verdict(segment.body, cited);
      return {
        ...base,
        citations: cited,
        supported: verdict.supported,
        why: verdict.why,
        inferred: [],
      };
    }
    // No marker: supported only if some passage supports it; then that passage is cited.
    let best: { n: number; verdict: Verdict } | undefined;
    for (let n = 1; n <= count; n++) {
      const verdict = await this.verdict(segment.body, [n]);
      if (best === undefined || verdict.strength > best.verdict.strength) best = { n, verdict };
    }
    if (best?.verdict.supported === true) {
      return {
        ...base,
        citations: [best.n],
        supported: true,
        why: `cited nothing; ${best.verdict.why} (marker added)`,
        inferred: [best.n],
      };
    }
    return {
      ...base,
      citations: [],
      supported: false,
      why:
        count === 0
          ? 'cites no passage, and there are none'
          : `cites no passage, and none supports it${best ? ` (closest: passage ${best.n}: ${best.verdict.why})` : ''}`,
      inferred: [],
    };
  }

  private rarity(stem: string, word: string): number {
    if (this.options.rarity) return this.options.rarity(stem);
    return COMMON_WORDS.has(word) ? COMMON_WEIGHT : 1;
  }

  private async verdict(body: string, cited: readonly number[]): Promise<Verdict> {
    const texts = cited.map((n) => this.passageTexts[n - 1] ?? '');
    const evidence = evidenceOf(texts);
    const where = passageList(cited);
    const facts = factsOf(body, true);
    for (const date of facts.dates) {
      if (!dateAgrees(date, evidence)) {
        return {
          supported: false,
          why: `the date “${date.text.trim()}” is not in ${where}`,
          strength: 0,
        };
      }
    }
    for (const number of facts.numbers) {
      if (!evidence.numbers.has(number.value)) {
        return { supported: false, why: `“${number.text}” is not in ${where}`, strength: 0.1 };
      }
      const context = evidence.contexts.get(number.value);
      // Only a unit the passage uses elsewhere: then this number belongs to something else.
      const misplaced =
        number.unit !== undefined &&
        evidence.stems.has(number.unit) &&
        context !== undefined &&
        !context.has(number.unit);
      if (misplaced) {
        return {
          supported: false,
          why: `${where} has “${number.text}”, but not for “${number.unit}…”`,
          strength: 0.1,
        };
      }
    }
    for (const name of facts.names) {
      if (!hasWord(evidence, name)) {
        return { supported: false, why: `“${name}” does not appear in ${where}`, strength: 0.1 };
      }
    }
    const stems = contentStems(body, this.question);
    let total = 0;
    let found = 0;
    const missing: Array<{ stem: string; weight: number }> = [];
    for (const { stem, word } of stems) {
      const weight = this.rarity(stem, word);
      total += weight;
      if (evidence.stems.has(stem)) found += weight;
      else missing.push({ stem, weight });
    }
    const coverage = total === 0 ? 1 : found / total;
    const percent = Math.round(coverage * 100);
    const minCoverage = this.options.minCoverage ?? DEFAULT_MIN_COVERAGE;
    const hard = facts.numbers.length + facts.dates.length + facts.names.length;
    const checked = hard > 0 ? 'its numbers, dates and names are there' : '';
    // A claim whose numbers, dates and names are all in the passage may word the rest freely,
    // within reason: at most one content word of its own, or a third of them in the passage.
    const ownWords = missing.filter((m) => m.weight > COMMON_WEIGHT).length;
    const anchored = hard > 0 && (ownWords <= 1 || coverage >= minCoverage / 2);
    if (coverage >= minCoverage || anchored) {
      return {
        supported: true,
        why: `${checked ? `${checked}; ` : ''}${percent}% of its words are in ${where}`,
        strength: 0.5 + coverage / 2,
      };
    }
    const similarity = this.options.similarity;
    if (similarity !== undefined && coverage >= SIMILARITY_FLOOR) {
      const scores = await similarity.similarities(body, texts);
      const best = scores.length === 0 ? 0 : Math.max(...scores);
      if (best >= (this.options.minSimilarity ?? DEFAULT_MIN_SIMILARITY)) {
        return {
          supported: true,
          why: `${percent}% of its words are in ${where}, and its meaning is close (similarity ${best.toFixed(2)})`,
          strength: 0.5 + coverage / 2,
        };
      }
    }
    const words = missing
      .sort((a, b) => b.weight - a.weight)
      .slice(0, 3)
      .map((m) => m.stem)
      .join(', ');
    return {
      supported: false,
      why: `only ${percent}% of its words are in ${where} (missing: ${words})`,
      strength: coverage / 2,
    };
  }
}

/** One claim as shown (see `checkAnswer`); a removed one is added to `removed`. */
export function renderClaim(
  claim: CheckedClaim,
  policy: UnsupportedClaimPolicy,
  removed: CheckedClaim[],
): string {
  const raw = claim.segment.raw;
  const trailing = /\s*$/.exec(raw)?.[0] ?? '';
  const core = raw.slice(0, raw.length - trailing.length);
  if (claim.supported) {
    return claim.inferred.length === 0 ? raw : `${core} [${claim.inferred.join(', ')}]${trailing}`;
  }
  if (policy === 'remove') {
    removed.push(claim);
    return trailing.includes('\n') ? '\n' : '';
  }
  return `${core} ⚠ _(unsupported: ${claim.why})_${trailing}`;
}

/** The note that says what was removed and why: removal is never silent. */
export function removalNote(removed: readonly CheckedClaim[]): string {
  if (removed.length === 0) return '';
  const list = removed.map((claim) => `“${claim.text}”: ${claim.why}`).join('; ');
  const what = removed.length === 1 ? 'one statement' : `${removed.length} statements`;
  return `\n\n_(Removed ${what} the cited notes do not support: ${list}.)_`;
}

/**
 * Checks a whole phrased answer: the text to show and the claims, with their verdicts.
 */
export async function checkAnswer(
  text: string,
  passages: readonly ClaimPassage[],
  policy: UnsupportedClaimPolicy,
  options: ClaimCheckOptions = {},
): Promise<CheckedAnswer> {
  const checker = new ClaimChecker(passages, options);
  const removed: CheckedClaim[] = [];
  const claims: CheckedClaim[] = [];
  let out = '';
  for (const segment of splitClaims(text)) {
    if (!segment.factual) {
      out += segment.raw;
      continue;
    }
    const claim = await checker.check(segment);
    claims.push(claim);
    out += renderClaim(claim, policy, removed);
  }
  return { text: removed.length === 0 ? out : `${out.trimEnd()}${removalNote(removed)}`, claims };
}

/**
 * Checks an answer while it streams: text is held until a claim is complete (its sentence and
 * markers ended and the next began, or a line ended), then released checked. `end()` checks the
 * rest and adds the removal note.
 */
export class ClaimStream {
  private buffer = '';
  private readonly checker: ClaimChecker;
  private readonly removed: CheckedClaim[] = [];
  readonly claims: CheckedClaim[] = [];

  constructor(
    passages: readonly ClaimPassage[],
    private readonly policy: UnsupportedClaimPolicy,
    options: ClaimCheckOptions = {},
  ) {
    this.checker = new ClaimChecker(passages, options);
  }

  async push(text: string): Promise<string> {
    this.buffer += text;
    const segments = splitClaims(this.buffer);
    // The last segment may still grow unless its line has ended.
    const open = this.buffer.endsWith('\n') ? 0 : 1;
    const complete = segments.slice(0, Math.max(0, segments.length - open));
    let out = '';
    for (const segment of complete) out += await this.release(segment);
    this.buffer = segments
      .slice(complete.length)
      .map((s) => s.raw)
      .join('');
    return out;
  }

  async end(): Promise<string> {
    let out = '';
    for (const segment of splitClaims(this.buffer)) out += await this.release(segment);
    this.buffer = '';
    if (this.removed.length > 0) out = `${out.trimEnd()}${removalNote(this.removed)}`;
    return out;
  }

  private async release(segment: ClaimSegment): Promise<string> {
    if (!segment.factual) return segment.raw;
    const claim = await this.checker.check(segment);
    this.claims.push(claim);
    return renderClaim(claim, this.policy, this.removed);
  }
}

/** The audit of an answer over `retrieved`: which passages its claims used, and each claim. */
export function answerAudit<C>(
  retrieved: readonly C[],
  claims: readonly AuditedClaim[],
): { retrieved: C[]; used: C[]; claims: AuditedClaim[] } {
  const used = new Set<number>();
  for (const claim of claims) for (const n of claim.citations) used.add(n);
  return {
    retrieved: [...retrieved],
    used: [...used]
      .sort((a, b) => a - b)
      .flatMap((n) => (retrieved[n - 1] === undefined ? [] : [retrieved[n - 1] as C])),
    claims: claims.map((claim) => ({
      text: claim.text,
      citations: claim.citations,
      supported: claim.supported,
      why: claim.why,
    })),
  };
}

/**
 * The claim check's similarity over an embedding model (the one search uses), when one is
 * loaded and ready; otherwise no scores, and the words decide alone.
 */
export function embedderSimilarity(embedder: () => Embedder | undefined): ClaimSimilarity {
  return {
    async similarities(claim, passages) {
      const model = embedder();
      if (model === undefined || model.ready === false || passages.length === 0) return [];
      const [query, ...vectors] = await model.embed([claim, ...passages]);
      if (query === undefined) return [];
      return vectors.map((vector) => cosine(query, vector));
    },
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * The audit of an extractive answer: each quote is a claim, taken word for word from the
 * passage its marker names, so supported by construction.
 */
export function extractiveAudit(extractive: {
  answer: string;
  citations: Citation[];
}): AnswerAudit {
  const claims = splitClaims(extractive.answer)
    .filter((segment) => segment.factual && segment.citations.length > 0)
    .map((segment) => ({
      text: segment.body,
      citations: segment.citations,
      supported: true,
      why: `quoted from passage ${segment.citations.join(', ')}`,
    }));
  return answerAudit(extractive.citations, claims);
}
