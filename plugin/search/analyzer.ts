import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { stemWord } from '../../shared/search/language';
import type { Language } from '../../shared/search/language';
import { STOP_WORDS, tokenize } from '../../shared/search/tokenize';

/*
 * Text → index terms for the keyword index: the shared tokenizer (folded: case and accents do
 * not matter; Chinese, Japanese and Thai segmented into words; the companion's FTS5 side uses
 * the same words), stop words dropped, duplicates kept (they are the term frequencies),
 * optionally stemming: in the text's language when it is one with a stemmer other than
 * English (shared/search/language.ts), else English (Orama's Porter-style stemmer). The
 * analyzer's id is saved with a snapshot: an index built by another analyzer is rebuilt.
 */

export interface Analyzer {
  readonly id: string;
  /** Index terms of a field's text, in order, with duplicates; `language`: the note's. */
  terms(text: string, language?: Language): string[];
  /** A query's content term (already normalised) as an index term; `language`: the query's. */
  queryTerm(term: string, language?: Language): string;
}

export function createAnalyzer(options: { stemming: boolean }): Analyzer {
  const english = options.stemming ? cachedStemmer() : (token: string) => token;
  const stem = (token: string, language: Language | undefined) =>
    !options.stemming || language === undefined || language === 'en'
      ? english(token)
      : stemWord(token, language);
  return {
    // -2: folded, segmented tokens and stems per language (snapshots of -1 are rebuilt).
    id: options.stemming ? 'fold-stop-stem-2' : 'fold-stop-2',
    terms(text, language) {
      const terms: string[] = [];
      for (const token of tokenize(text)) {
        if (!STOP_WORDS.has(token)) terms.push(stem(token, language));
      }
      return terms;
    },
    queryTerm: stem,
  };
}

/** Vault text repeats its words; the stemmer's cost is per distinct word with a cache. */
function cachedStemmer(): (token: string) => string {
  const stemmer = oramaTokenizer.createTokenizer({ language: 'english', stemming: true }).stemmer;
  if (!stemmer) throw new Error('analyzer: Orama gave no English stemmer');
  const cache = new Map<string, string>();
  return (token) => {
    let stemmed = cache.get(token);
    if (stemmed === undefined) {
      // Numbers and codes are not English words.
      stemmed = /^\p{L}+$/u.test(token) ? stemmer(token) : token;
      if (cache.size > 200_000) cache.clear();
      cache.set(token, stemmed);
    }
    return stemmed;
  };
}
