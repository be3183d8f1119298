import type { Answerer, ExtractiveAnswer, Searcher, SearchHit } from '../../shared/chat/ports';
import { answerQuestion } from './answer-service';
import { decisionsOf } from './answer-routes';
import { toIndexFilters } from './request-filters';
import { requireSearch } from './search-routes';
import type { SearchServices } from './search-services';

/*
 * The `search` and `answer` tools (chat, MCP, the OpenAI route) over the companion's own search:
 * the same hybrid search and extractive answers as `GET /api/v1/search` and `POST /api/v1/answer`,
 * so a tool's answer cites exactly what the route would (docs/search.md citation objects). They
 * throw what the routes throw (ApiHttpError, e.g. UNAVAILABLE before the index is ready, a bad
 * date filter's VALIDATION_ERROR); the tool runner maps it once (http/tool-error.ts).
 */

const DEFAULT_SEARCH_LIMIT = 10;
const DEFAULT_ANSWER_LIMIT = 5;

export class CompanionSearcher implements Searcher {
  constructor(
    private readonly services: SearchServices,
    /** The vault's zone: date filters without an offset are read in it. */
    private readonly zone: () => string,
  ) {}

  async search(request: Parameters<Searcher['search']>[0]): Promise<SearchHit[]> {
    const search = requireSearch(this.services);
    const filters = toIndexFilters(request, this.zone());
    const outcome = await search.search({
      query: request.query,
      limit: request.limit ?? DEFAULT_SEARCH_LIMIT,
      filters,
    });
    return outcome.hits.map((hit) => ({ citation: hit.citation, score: hit.score }));
  }
}

export class CompanionAnswerer implements Answerer {
  constructor(private readonly services: SearchServices) {}

  async answer(request: { question: string; limit?: number }): Promise<ExtractiveAnswer> {
    const search = requireSearch(this.services);
    // Phrasing is the chat engine's job (AnswerPhraser), so the quotes come back unsummarised.
    const outcome = await answerQuestion(search, undefined, {
      question: request.question,
      limit: request.limit ?? DEFAULT_ANSWER_LIMIT,
      summarize: false,
      ...decisionsOf(this.services),
    });
    return { answer: outcome.answer, citations: outcome.citations };
  }
}
