/**
 * The default, LLM-free answer (docs/search.md): the best passages for the question, quoted, each
 * with its citation marker. Passages scoring far below the best one are left out, so a weak
 * keyword match does not dilute a strong one, and passages the answer gate declines
 * (shared/search/answer-gate.ts, the searcher's `relevance`) are not quoted at all: nothing
 * relevant means no citations, and the chat says it found nothing. Works over any Searcher
 * (the plugin's on-device BM25F and vector index, the companion's SQLite search).
 */
import { ANSWER_RELEVANCE } from '../search/answer-gate';
import type { Answerer, ExtractiveAnswer, Searcher } from './ports';

export interface ExtractiveAnswererOptions {
  /** Passages quoted at most (the question's own `limit` wins). */
  limit?: number;
  /** Keep passages scoring at least this share of the best score. */
  minShareOfBest?: number;
}

const DEFAULT_LIMIT = 3;
const DEFAULT_MIN_SHARE = 0.5;

export class ExtractiveAnswerer implements Answerer {
  constructor(
    private readonly searcher: Searcher,
    private readonly options: ExtractiveAnswererOptions = {},
  ) {}

  async answer(request: { question: string; limit?: number }): Promise<ExtractiveAnswer> {
    const limit = request.limit ?? this.options.limit ?? DEFAULT_LIMIT;
    // Passages the answer gate declines are not quoted (a searcher that judged them says so).
    const hits = (await this.searcher.search({ query: request.question, limit })).filter(
      (hit) => hit.relevance === undefined || hit.relevance >= ANSWER_RELEVANCE,
    );
    const best = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
    const share = this.options.minShareOfBest ?? DEFAULT_MIN_SHARE;
    const kept = hits
      .filter((hit) => hit.citation.excerpt.trim() !== '' && hit.score >= best * share)
      .slice(0, limit);
    const citations = kept.map((hit) => hit.citation);
    const answer = citations
      .map((citation, index) => {
        const quoted = citation.excerpt
          .trim()
          .split(/\r?\n/)
          .map((line) => `> ${line}`.trimEnd())
          .join('\n');
        return `${quoted} [${index + 1}]`;
      })
      .join('\n\n');
    return { answer, citations };
  }
}
