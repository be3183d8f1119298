import { ChatPortError } from '../../shared/chat/ports';
import type { Answerer, ExtractiveAnswer, Searcher, SearchHit } from '../../shared/chat/ports';
import { answerQuestion } from './answer-service';
import { decisionsOf } from './answer-routes';
import type { HybridSearch } from './hybrid-search';
import { toIndexFilters } from './request-filters';
import type { SearchServices } from './search-services';

/*
 * The chat engine's read tools over the companion's own search: the same hybrid search and
 * extractive answers as `GET /api/v1/search` and `POST /api/v1/answer`, so a chat answer cites
 * exactly what the answer route would (docs/search.md citation objects).
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
    const search = currentSearch(this.services);
    // A bad date filter throws ApiHttpError VALIDATION_ERROR; the tool runner maps it (http/tool-error.ts).
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
    const search = currentSearch(this.services);
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

function currentSearch(services: SearchServices): HybridSearch {
  const search = services.hybridSearch();
  if (search === undefined) {
    throw new ChatPortError(
      'UNAVAILABLE',
      'the vault index is not available yet; search and answers work once the companion has indexed the vault',
    );
  }
  return search;
}
