import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { STOP_WORDS, tokenize } from '../../shared/search/tokenize';

/*
 * Text → index terms for the keyword index: the shared tokenizer (the companion's FTS5 side
 * uses the same words), stop words dropped, duplicates kept (they are the term frequencies),
 * optionally English stemming (Orama's Porter-style stemmer). The analyzer's id is saved with
 * a snapshot: an index built by another analyzer is rebuilt, not reused.
 */

export interface Analyzer {
  readonly id: string;
  /** Index terms of a field's text, in order, with duplicates. */
  terms(text: string): string[];
  /** A query's content term (already normalised) as an index term. */
  queryTerm(term: string): string;
}

export function createAnalyzer(options: { stemming: boolean }): Analyzer {
  const stem = options.stemming ? cachedStemmer() : (token: string) => token;
  return {
    id: options.stemming ? 'en-stop-stem-1' : 'en-stop-1',
    terms(text) {
      const terms: string[] = [];
      for (const token of tokenize(text)) if (!STOP_WORDS.has(token)) terms.push(stem(token));
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
