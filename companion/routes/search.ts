import type { FastifyInstance } from 'fastify';
import { SearchQuery, SearchResponse } from '../../shared/protocol/search';
import { ApiHttpError } from '../http/api-error';
import { decodeCursor, encodeCursor } from '../search/cursor';
import type { HybridSearch } from '../search/hybrid-search';
import { toIndexFilters } from '../search/request-filters';
import type { SearchServices } from '../search/search-services';

/** Results a cursor can page through at most; deeper pages are not what people read. */
export const MAX_SEARCH_OFFSET = 500;

/** `GET /api/v1/search?q=&limit=&type=&folder=&tag=&from=&to=&cursor=` (DESIGN §6). */
export function registerSearchRoute(
  app: FastifyInstance,
  services: SearchServices,
  timezone: string,
): void {
  app.get<{ Querystring: SearchQuery }>(
    '/api/v1/search',
    {
      config: { limited: 'search' },
      schema: { querystring: SearchQuery, response: { 200: SearchResponse } },
    },
    async (request): Promise<SearchResponse> => {
      const query = request.query;
      const search = requireSearch(services);
      const limit = query.limit ?? 10;
      const filters = toIndexFilters(query, timezone);
      const identity = JSON.stringify([query.q, filters]);
      const offset = query.cursor === undefined ? 0 : decodeCursor(query.cursor, identity);
      if (offset > MAX_SEARCH_OFFSET) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          `cursor goes past ${MAX_SEARCH_OFFSET} results`,
          'cursor',
        );
      }
      const outcome = await search.search({ query: query.q, limit, offset, filters });
      return {
        results: outcome.hits.map((hit) => ({ citation: hit.citation, score: hit.score })),
        next_cursor:
          outcome.hasMore && offset + limit <= MAX_SEARCH_OFFSET
            ? encodeCursor(offset + limit, identity)
            : null,
        mode: outcome.mode,
      };
    },
  );
}

/** The search over the current index, or a 503 saying why there is none. */
export function requireSearch(services: SearchServices): HybridSearch {
  const search = services.hybridSearch();
  if (search === undefined) {
    throw new ApiHttpError(
      'UNAVAILABLE',
      'the vault index is not available yet; search and answers work once the companion has indexed the vault',
      undefined,
      { 'retry-after': '5' },
    );
  }
  return search;
}
