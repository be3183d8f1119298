/*
 * Query normalisation both search engines share (Orama in the plugin, FTS5 in the companion):
 * folded Unicode word tokens (case, accents and Unicode normal form do not matter: `Café`,
 * `cafe` and a decomposed `café` are one word), words of scripts written without spaces
 * (Chinese, Japanese, Thai) segmented with `Intl.Segmenter`, English stop words removed, and the
 * question scaffolding of natural-language queries ("how do I …", "tell me about …") dropped.
 * Measured on obsidian-help-en (2026-11-22): stop words took Orama from nDCG@10 0.20 to 0.39.
 * Stemming per language is in language.ts.
 */

/**
 * English function words: articles, pronouns, auxiliaries, prepositions, conjunctions. Based
 * on the common Lucene/Snowball lists; negations (`no`, `not`) are kept out because "not
 * synced" and "synced" are different questions.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being
  below between both but by could did do does doing down during each few for from further had has
  have having he her here hers herself him himself his i if in into is it its itself just me more
  most my myself of off on once only or other our ours ourselves out over own same she should so
  some such than that the their theirs them themselves then there these they this those through
  to too under until up very was we were what when where which while who whom why will with would
  you your yours yourself yourselves can cannot might must shall s t ll re ve d m`.split(/\s+/),
);

/**
 * Words that shape a question or request but say nothing about its subject. Removed from
 * queries only, never from indexed text.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  `how what why when where which who whom whose please tell show explain describe find get
  want need know way possible anyone someone something anything`.split(/\s+/),
);

/**
 * "How long", "how often", "how far", "how soon", "how much", "how many": the word after "how"
 * asks for a duration, a frequency, a distance or an amount and is not the subject ("how long
 * can I stay in Portugal?" is about staying in Portugal; as the rarest term, `long` used to
 * outweigh both and the answer declined). Elsewhere they are words like any other: Cranfield's
 * "structures continuous over many spans" needs its "many" (as a stop word it cost nDCG@10).
 */
const HOW_MEASURE = /\bhow\s+(?:long|often|far|soon|much|many)\b/giu;

/** Leading request phrases removed before tokenising ("is there a way to", "tell me about"). */
const REQUEST_PREFIX =
  /^\s*(?:(?:hey|hi|ok|okay|please)[\s,]+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:tell me (?:about|how|what|where|why|when)?|show me(?: how)?|explain(?: to me)?|is there (?:a|any) way (?:to|of)|i (?:want|need|would like) to(?: know)?|help me(?: to)?|do you know)\s*/i;

/**
 * Text as search compares it: compatibility forms unified (NFKC: `ﬁ` → `fi`, full-width →
 * ASCII), lower-cased, and the accents of Latin and Greek letters removed (`Café` → `cafe`,
 * also when the accent came as a separate combining mark). Other scripts keep their marks: a
 * Japanese voicing mark or a Thai vowel sign changes the word.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/([\p{Script=Latin}\p{Script=Greek}])\p{M}+/gu, '$1')
    .normalize('NFC');
}

/** Scripts written without spaces between words: their runs go through a word segmenter. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

let segmenter: Intl.Segmenter | undefined;

/** The words of a run of unspaced script (dictionary-based, from the runtime's ICU). */
function segmentRun(run: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const words: string[] = [];
  for (const part of segmenter.segment(run)) if (part.isWordLike) words.push(part.segment);
  return words.length > 0 ? words : [run];
}

/** Whether a token is (partly) written in a script without spaces (CJK, Thai). */
export function isUnspacedScript(token: string): boolean {
  return UNSPACED.test(token);
}

/**
 * Folded word tokens: letters (with their marks) and digits of any script, split at everything
 * else; runs of Chinese, Japanese or Thai split into words. Possessive `'s` is dropped and inner
 * apostrophes joined (`don't` → `dont`).
 */
export function tokenize(text: string): string[] {
  const cleaned = foldText(text)
    .replace(/['’]s\b/g, '')
    .replace(/(\p{L})['’](\p{L})/gu, '$1$2');
  const tokens: string[] = [];
  for (const token of cleaned.split(/[^\p{L}\p{M}\p{N}]+/u)) {
    if (token.length === 0) continue;
    if (UNSPACED.test(token)) tokens.push(...segmentRun(token));
    else tokens.push(token);
  }
  return tokens;
}

/**
 * Text for a full-text engine that splits words at spaces only (SQLite FTS5's unicode61): the
 * same text with a space between the words of every unspaced-script run, so `設定フォルダ`
 * becomes the two words `設定 フォルダ` on both the indexed and the query side.
 */
export function spaceUnspacedWords(text: string): string {
  if (!UNSPACED.test(text)) return text;
  return text.replace(/[\p{L}\p{M}\p{N}]+/gu, (run) =>
    UNSPACED.test(run) ? segmentRun(run).join(' ') : run,
  );
}

export function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token);
}

export interface NormalisedQuery {
  /** Content terms, in query order, without duplicates. */
  terms: string[];
  /** `terms` joined by spaces: what a full-text engine should be given. */
  text: string;
}

/**
 * The content terms of a query. When nothing is left ("what is it?"), falls back to the tokens
 * minus question words, then to all tokens, so a query never becomes empty by normalising.
 */
export function normaliseQuery(query: string): NormalisedQuery {
  const tokens = tokenize(query.replace(REQUEST_PREFIX, '').replace(HOW_MEASURE, 'how'));
  const attempts = [
    tokens.filter((token) => !STOP_WORDS.has(token) && !QUESTION_WORDS.has(token)),
    tokens.filter((token) => !QUESTION_WORDS.has(token)),
    tokenize(query),
  ];
  const chosen = attempts.find((candidate) => candidate.length > 0) ?? [];
  const terms = [...new Set(chosen)];
  return { terms, text: terms.join(' ') };
}
