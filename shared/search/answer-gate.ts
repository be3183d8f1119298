import { USE_LITE_MODEL } from '../embeddings/use-lite-model';
import { detectLanguage, functionWordsOf, hasFunctionWordsOf } from './language';
import { synonymsOf } from './synonyms';
import { isUnspacedScript, tokenize } from './tokenize';

/*
 * The answer gate: whether a retrieved passage is about the question at all, and how much (a
 * relevance a client can show). One policy for the companion (answers, chat, MCP `ask`,
 * scheduled tasks) and the plugin's own chat. Fused scores are relative (the best result of
 * any query scores 1), so answers and clients need an absolute signal: how much of the
 * question the passage covers, and, with vectors of a measured model, the cosine similarity to
 * the question.
 *
 * Key terms: the question's terms do not count alike. "Reset my Windows password" over the
 * Obsidian help vault finds "password" and "reset" (Obsidian Publish) but not "windows": two
 * thirds of the words, yet not what was asked. Each term is weighted by its inverse document
 * frequency in the index (BM25's idf; a term no passage contains gets the highest weight), and
 * coverage is the weighted share of the terms a passage contains (title, aliases and headings
 * included). Without index statistics every term weighs the same.
 *
 * Named terms: a question that names something ("my Apple ID", "in PowerPoint", "from
 * Dropbox", "in 1998") asks about that thing. A passage that does not name it answers a
 * neighbouring question, however close in meaning: "How do I set up two-factor authentication
 * for Gmail?" is not answered by Obsidian's own two-factor page. So a passage passes only if
 * it contains every named term that is rare in the vault (weight ≥ minNamedWeight: a name in
 * a third of the passages, like "Obsidian" in its own help vault, is the vault's subject and
 * says nothing). Named means written as a name: capitalised inside a sentence, capitals inside
 * a word (iPhone, BIOS), or digits; not in German, whose nouns are all capitalised. A name
 * typed in lower case is not seen, and the gate falls back on coverage and cosine.
 *
 * Names in passing: a passage that names the thing only in its body mentions it; one whose
 * title, aliases or headings name it is about it. "How do I bookmark a page in Firefox?" is not
 * answered by the web viewer's note, whose only Firefox is "Mozilla's Readability library
 * developed for Firefox". So when a passage's title, aliases and headings do not hold every
 * rare name the question writes, it must also cover half of the weight of the question's other
 * terms (what is asked about the thing: bookmark, page); the usual coverage and cosine rule
 * still applies on top.
 *
 * Cosine scales differ by model (a bag-of-words model gives unrelated texts 0.5 for shared
 * function words), so the cosine only counts for models whose scale was measured.
 *
 * Measured with `npm run eval -- --answerable`: see docs/search-quality.md for the table.
 */

export interface RelevanceThresholds {
  /** Minimum key-term coverage when no cosine gate applies (keyword-only, unmeasured model). */
  minTermCoverage: number;
  /** Key-term coverage that passes on its own when vectors are there too. */
  minTermCoverageWithVectors: number;
  /** Key-term coverage a passage needs on top of a passing cosine (near misses share a topic). */
  minTermCoverageWithCosine: number;
  /** Minimum cosine similarity per embedding model id; models not listed: cosine is ignored. */
  minCosine: Readonly<Record<string, number>>;
  /** Key-term weight from which a named term of the question must be in the passage. */
  minNamedWeight: number;
  /**
   * Coverage of the question's terms other than its rare names that a passage needs when it
   * names them only in its body, not in its title, aliases or headings (names in passing).
   */
  minOtherTermCoverage: number;
}

export const RELEVANCE_THRESHOLDS: Readonly<RelevanceThresholds> = {
  minTermCoverage: 0.5,
  minTermCoverageWithVectors: 0.6,
  minTermCoverageWithCosine: 0.1,
  minCosine: { [USE_LITE_MODEL.id]: 0.45 },
  minNamedWeight: 1,
  minOtherTermCoverage: 0.5,
};

/** Relevance (relevanceOf) from which a passage answers the question: the gate passes. */
export const ANSWER_RELEVANCE = 0.5;

/**
 * Cosine range that maps onto relevance 0..1 per model: the measured gate threshold is the
 * middle (0.5), a cosine as high as a near-duplicate's is 1.
 */
const COSINE_SCALE: Readonly<Record<string, { zero: number; one: number }>> = {
  [USE_LITE_MODEL.id]: { zero: 0.25, one: 0.65 },
};

/** What the gate reads of a retrieved passage: its chunk's words and its cosine, if any. */
export interface GatedPassage {
  chunk: {
    title: string;
    aliases: readonly string[];
    headingPath: readonly string[];
    text: string;
  };
  /** Cosine similarity to the question, when vectors ranked it. */
  vectorScore?: number;
}

/** What a passage's relevance is judged on: the question's terms and, if known, their weights. */
export interface RelevanceQuery {
  terms: readonly string[];
  /** Key-term weights (keyTermWeights), parallel to `terms`. */
  weights?: readonly number[];
  /** The model whose vectors scored `vectorScore`. */
  model?: string;
  /** The names the question writes, each as its terms in order (questionNames). */
  names?: ReadonlyArray<readonly string[]>;
}

/**
 * Weight of each query term from its chunk frequency in the index: BM25's idf,
 * ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every chunk weighs almost nothing and a term
 * in none weighs most.
 */
export function keyTermWeights(documentFrequencies: readonly number[], total: number): number[] {
  return documentFrequencies.map((df) =>
    Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5)),
  );
}

function containsTerm(words: ReadonlySet<string>, term: string): boolean {
  // A synonym stands for the term (synonyms.ts: "configuration" covers "settings").
  const forms = [term, ...synonymsOf(term)];
  return [...words].some((word) =>
    forms.some(
      // A Chinese or Japanese term may sit inside a longer segmented word.
      (form) => word.startsWith(form) || (isUnspacedScript(form) && word.includes(form)),
    ),
  );
}

/**
 * Weighted share (0..1) of `terms` that occur in `text` at a word start (prefix match, like
 * FTS5's). `weights` default to 1 each.
 */
export function termCoverage(
  terms: readonly string[],
  text: string,
  weights?: readonly number[],
): number {
  if (terms.length === 0) return 0;
  const words = new Set(tokenize(text));
  let found = 0;
  let total = 0;
  terms.forEach((term, i) => {
    const weight = weights?.[i] ?? 1;
    total += weight;
    if (containsTerm(words, term)) found += weight;
  });
  return total > 0 ? found / total : 0;
}

/** A word the question writes as a name: capitals inside it, a capital mid-sentence, digits. */
function isWrittenAsName(word: string, sentenceStart: boolean, capitalisedNouns: boolean): boolean {
  if (/\p{N}/u.test(word)) return true;
  if (/^.+\p{Lu}/u.test(word)) return true;
  return !sentenceStart && !capitalisedNouns && word !== 'I' && /^\p{Lu}/u.test(word);
}

/**
 * The names `question` writes, each as its terms (of `terms`, normaliseQuery's) in order:
 * "How do I change my Apple ID password?" → [apple, id]; "iPhone contacts with Google" →
 * [iphone], [google]. Words written as names next to each other are one name. A
 * sentence-initial word counts only with capitals inside (iPhone); in German, whose nouns are
 * all capitalised, only those and digits count.
 */
export function questionNames(question: string, terms: readonly string[]): string[][] {
  const wanted = new Set(terms);
  // German capitalises every noun; a short question is told by its function words.
  const capitalisedNouns = detectLanguage(question) === 'de' || hasFunctionWordsOf(question, 'de');
  const names: string[][] = [];
  let current: string[] = [];
  const close = () => {
    if (current.length > 0) names.push(current);
    current = [];
  };
  let sentenceStart = true;
  for (const match of question.matchAll(/[\p{L}\p{M}\p{N}'’-]+|[^\s\p{L}\p{M}\p{N}'’-]+/gu)) {
    const word = match[0];
    if (!/[\p{L}\p{N}]/u.test(word)) {
      // Punctuation ends a name; a full stop also starts a sentence.
      close();
      if (/[.!?:;]/.test(word)) sentenceStart = true;
      continue;
    }
    const tokens = tokenize(word);
    if (
      isWrittenAsName(word, sentenceStart, capitalisedNouns) &&
      tokens.every((t) => wanted.has(t))
    ) {
      current.push(...tokens);
    } else {
      close();
    }
    sentenceStart = false;
  }
  close();
  return names.filter((name) => name.length > 0);
}

/** Link addresses and bare URLs: their words (hosts, query ids) are not what a passage says. */
const ADDRESSES = /\]\([^)]*\)|<https?:[^>]*>|https?:\/\/\S+/g;

/**
 * Whether `words` hold `name` as consecutive words, each as written or with a short ending
 * ("iPhones"): not as the start of a longer word, the way a term matches ("Git" is not
 * "GitHub").
 */
function containsName(words: readonly string[], name: readonly string[]): boolean {
  const matches = (word: string, part: string) =>
    (word.startsWith(part) && word.length - part.length <= 2) ||
    (isUnspacedScript(part) && word.includes(part));
  for (let i = 0; i + name.length <= words.length; i++) {
    if (name.every((part, j) => matches(words[i + j]!, part))) return true;
  }
  return false;
}

function haystack(passage: GatedPassage): string {
  const chunk = passage.chunk;
  return [chunk.title, ...chunk.aliases, ...chunk.headingPath, chunk.text].join('\n');
}

/**
 * The query's key-term weights with its function words weighing nothing. English ones are
 * stop words and never terms; in another language ("Come si cucina la pasta alla carbonara?")
 * they are, and a passage that shares only "come", "si" and "la" shares nothing. The language
 * is told from the terms themselves (detectLanguage: too few or too mixed, none).
 */
export function contentWeights(query: RelevanceQuery): number[] {
  const functionWords = functionWordsOf(detectLanguage(query.terms.join(' ')));
  return query.terms.map((term, i) => (functionWords.has(term) ? 0 : (query.weights?.[i] ?? 1)));
}

/** The passage's key-term coverage (function words weigh nothing: contentWeights). */
export function hitCoverage(passage: GatedPassage, query: RelevanceQuery): number {
  return termCoverage(query.terms, haystack(passage), contentWeights(query));
}

/** The question's names rare in the vault (every word of weight ≥ minNamedWeight). */
function rareNames(query: RelevanceQuery, thresholds: RelevanceThresholds): string[][] {
  if (query.names === undefined || query.names.length === 0) return [];
  const weightOf = (term: string) => {
    const i = query.terms.indexOf(term);
    return i < 0 ? Infinity : (query.weights?.[i] ?? Infinity);
  };
  return query.names
    .filter((name) => name.every((term) => weightOf(term) >= thresholds.minNamedWeight))
    .map((name) => [...name]);
}

/**
 * The question's names the passage does not contain, among those rare in the vault (every
 * word of weight ≥ minNamedWeight): a passage missing one is about something else.
 */
export function missingNames(
  passage: GatedPassage,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): string[][] {
  const names = rareNames(query, thresholds);
  if (names.length === 0) return [];
  const words = tokenize(haystack(passage).replace(ADDRESSES, ' '));
  return names.filter((name) => !containsName(words, name));
}

/** A passage's title, aliases and headings (its heading path and the headings in its text). */
function headlines(passage: GatedPassage): string {
  const chunk = passage.chunk;
  const inText = chunk.text.split('\n').filter((line) => /^\s{0,3}#{1,6}\s/.test(line));
  return [chunk.title, ...chunk.aliases, ...chunk.headingPath, ...inText].join('\n');
}

/**
 * The question's rare names that the passage names only in passing: in its body, not in its
 * title, aliases or headings. (Names it lacks altogether are missingNames'.)
 */
export function namesInPassing(
  passage: GatedPassage,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): string[][] {
  const names = rareNames(query, thresholds);
  if (names.length === 0) return [];
  const words = tokenize(headlines(passage).replace(ADDRESSES, ' '));
  return names.filter((name) => !containsName(words, name));
}

/**
 * Weighted share of the question's terms other than its rare names that the passage covers:
 * what the question asks about the things it names. 1 when it asks nothing else.
 */
export function otherTermCoverage(
  passage: GatedPassage,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): number {
  const named = new Set(rareNames(query, thresholds).flat());
  const weights = contentWeights(query);
  const others = query.terms.flatMap((term, i) =>
    named.has(term) || weights[i] === 0 ? [] : [{ term, weight: weights[i]! }],
  );
  if (others.length === 0) return 1;
  return termCoverage(
    others.map((other) => other.term),
    haystack(passage),
    others.map((other) => other.weight),
  );
}

export function isRelevant(
  passage: GatedPassage,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): boolean {
  if (missingNames(passage, query, thresholds).length > 0) return false;
  if (
    namesInPassing(passage, query, thresholds).length > 0 &&
    otherTermCoverage(passage, query, thresholds) < thresholds.minOtherTermCoverage
  ) {
    return false;
  }
  const minCosine = query.model === undefined ? undefined : thresholds.minCosine[query.model];
  const coverage = hitCoverage(passage, query);
  if (minCosine === undefined) return coverage >= thresholds.minTermCoverage;
  if (coverage >= thresholds.minTermCoverageWithVectors) return true;
  return (
    passage.vectorScore !== undefined &&
    passage.vectorScore >= minCosine &&
    coverage >= thresholds.minTermCoverageWithCosine
  );
}

/** Whether `model`'s cosines have a measured scale, so relevance can judge hits by meaning. */
export function hasCosineScale(model: string): boolean {
  return COSINE_SCALE[model] !== undefined;
}

/**
 * A relevance in 0..1 that means the same for every query (unlike the fused score): the
 * larger of the key-term coverage and the cosine rescaled for its model (COSINE_SCALE), and
 * halved when the passage fails the answer gate, so that 0.5 and above means "relevant enough
 * to quote" on every scale. See docs/search-quality.md.
 */
export function relevanceOf(
  passage: GatedPassage,
  query: RelevanceQuery,
  thresholds: RelevanceThresholds = RELEVANCE_THRESHOLDS,
): number {
  const coverage = hitCoverage(passage, query);
  const scale = query.model === undefined ? undefined : COSINE_SCALE[query.model];
  const semantic =
    scale === undefined || passage.vectorScore === undefined
      ? 0
      : clamp01((passage.vectorScore - scale.zero) / (scale.one - scale.zero));
  const raw = Math.max(coverage, semantic);
  const passes = isRelevant(passage, query, thresholds);
  // Passing passages land in [0.5, 1], failing ones in [0, 0.5).
  return round3(passes ? ANSWER_RELEVANCE + raw / 2 : Math.min(0.499, raw / 2));
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
