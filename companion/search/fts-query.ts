import { foldText, spaceUnspacedWords, stemWord, synonymsOf } from '../../shared/search';
import type { Language } from '../../shared/search';

/** At most this many terms reach FTS5; a pasted page of text must not become a huge query. */
export const MAX_QUERY_TERMS = 32;
/**
 * Latin terms shorter than this are matched whole: `to*` matches a good part of an English
 * index. Measured on 11k chunks: p95 keyword latency 41 → 20 ms going from 2 to 3, with
 * identical nDCG@10/Recall@10 on Cranfield and obsidian-help-en.
 */
const MIN_PREFIX_LENGTH = 3;
/** Scripts written without spaces (CJK) come as long runs; a short term still needs a prefix. */
const NON_LATIN = /[^\p{Script=Latin}\p{N}_]/u;

// Letters (with their combining marks), digits and connector punctuation, as unicode61 sees a token.
const TERM = /[\p{L}\p{M}\p{N}_]+/gu;

/**
 * Turns what a user typed into an FTS5 MATCH expression that cannot be misread as FTS syntax:
 * every term is double-quoted (quotes inside doubled, though TERM never lets one through),
 * terms are OR-ed so that BM25 ranks notes matching more of them first instead of dropping
 * every note that misses one word, and each term also matches as a prefix (`visa` finds
 * `visas`). Returns null when the text holds no searchable term.
 */
export function toFtsQuery(
  userText: string,
  /** Languages of the index's notes: a term's stems in them are OR-ed in (as prefixes). */
  stemLanguages: readonly Language[] = [],
  /** Whether a term needs its stems; default all. */
  needsStems: (term: string) => boolean = () => true,
): string | null {
  // Folded and with Chinese/Japanese/Thai words spaced apart, as the indexed text was.
  const words = spaceUnspacedWords(foldText(userText)).match(TERM) ?? [];
  const terms = [...new Set(words)].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return null;
  const alternatives = new Set<string>();
  for (const term of terms) {
    alternatives.add(term);
    for (const synonym of synonymsOf(term)) alternatives.add(synonym);
    for (const language of stemLanguages.length > 0 && needsStems(term) ? stemLanguages : []) {
      const stem = stemWord(term, language);
      if (stem.length >= MIN_PREFIX_LENGTH) alternatives.add(stem);
    }
  }
  return [...alternatives]
    .map((term) => {
      const quoted = `"${term.replaceAll('"', '""')}"`;
      return term.length >= MIN_PREFIX_LENGTH || NON_LATIN.test(term) ? `${quoted}*` : quoted;
    })
    .join(' OR ');
}
