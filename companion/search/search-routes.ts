import type { FastifyInstance } from 'fastify';
import { SearchQuery, SearchResponse } from '../../shared/protocol/search';
import { ApiHttpError } from '../http/api-error';
import { decodeSnapshotCursor, encodeSnapshotCursor } from './cursor';
import type { HybridSearch } from './hybrid-search';
import { toIndexFilters } from './request-filters';
import type { RankedResults, SearchServices } from './search-services';

/**
 * Results one search ranks and a cursor can page through at most. Every page is a slice of
 * this one ranking (kept in a snapshot, see result-snapshots.ts), so it is ranked in full on
 * the first page; the fusion's candidate depth bounds it in practice.
 */
export const SEARCH_RESULT_WINDOW = 200;

/** `GET /api/v1/search?q=&limit=&type=&folder=&tag=&from=&to=&cursor=` (companion/README.md). */
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
      let ranked: RankedResults;
      let snapshot: string | undefined;
      let offset = 0;
      if (query.cursor !== undefined) {
        const cursor = decodeSnapshotCursor(query.cursor, identity);
        const kept = services.snapshots.read(cursor.snapshot, identity);
        if (kept === undefined) {
          throw new ApiHttpError(
            'CURSOR_EXPIRED',
            'this cursor expired (its results are no longer kept); run the search again from the first page',
            'cursor',
          );
        }
        ranked = kept;
        snapshot = cursor.snapshot;
        offset = cursor.offset;
      } else {
        const outcome = await search.search({
          query: query.q,
          limit: SEARCH_RESULT_WINDOW,
          filters,
        });
        ranked = {
          results: outcome.hits.map((hit) => ({
            citation: hit.citation,
            score: hit.score,
            relevance: hit.relevance,
          })),
          mode: outcome.mode,
        };
      }
      const end = offset + limit;
      const more = end < ranked.results.length;
      if (more && snapshot === undefined) snapshot = services.snapshots.keep(ranked, identity);
      return {
        results: ranked.results.slice(offset, end),
        next_cursor:
          more && snapshot !== undefined
            ? encodeSnapshotCursor({ snapshot, offset: end }, identity)
            : null,
        mode: ranked.mode,
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
