import { index as oramaIndex } from '@orama/orama/components';

type OramaIndexComponent = ReturnType<typeof oramaIndex.createIndex>;
type IndexData = Parameters<OramaIndexComponent['insertTokenScoreParameters']>[0];

/**
 * Orama's default index with one function replaced. The default
 * `insertTokenScoreParameters` counts each token's occurrences by scanning the field's whole
 * token list, once per token: quadratic in the length of a field, ~60% of insert time for
 * 1,000-character chunks. Orama's tokenizer already removed duplicates (allowDuplicates is
 * off), so every token occurs exactly once and the term frequency is 1 / tokens.length: the
 * same scores, computed in constant time.
 */
export function linearTimeIndex(): OramaIndexComponent {
  const base = oramaIndex.createIndex();
  return {
    ...base,
    insertTokenScoreParameters(
      index: IndexData,
      prop: string,
      id,
      tokens: string[],
      token: string,
    ) {
      // Called by Orama's insert with the internal (numeric) document id.
      const internalId = id as unknown as number;
      index.frequencies[prop]![internalId]![token] = 1 / tokens.length;
      index.tokenOccurrences[prop]![token] = (index.tokenOccurrences[prop]![token] ?? 0) + 1;
    },
  };
}
