import type { FastifyInstance } from 'fastify';
import { RelatedQuery, RelatedResponse } from '../../shared/protocol/search';
import type { SearchResult } from '../../shared/protocol/search';
import { tokenize } from '../../shared/search';
import { ApiHttpError } from '../http/api-error';
import { citeChunk } from './chunk-citation';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
import { withExclusions, withinPathRules } from './hybrid-search';
import { requireSearch } from './search-routes';
import type { SearchServices } from './search-services';
import type { ChunkHit, SearchIndex } from './search-index';

/**
 * Candidates asked of each engine per chunk returned: the note's own chunks come back too (and
 * are dropped), and a short note's title words match few chunks.
 */
const POOL_FACTOR = 2;

/**
 * `GET /api/v1/related?path=&limit=`: the related-notes view's content candidates for a phone
 * that keeps no index (docs/search.md). The note's stored vectors (the mean of its chunks', no
 * model call) against every other chunk's, and its title's words as a keyword query, with the
 * same exclusions as search (Cairn's chats and digests are never related).
 */
export function registerRelatedRoute(app: FastifyInstance, services: SearchServices): void {
  app.get<{ Querystring: RelatedQuery }>(
    '/api/v1/related',
    {
      config: { limited: 'search' },
      schema: { querystring: RelatedQuery, response: { 200: RelatedResponse } },
    },
    (request): RelatedResponse => {
      const { path } = request.query;
      const limit = request.query.limit ?? 20;
      // 503 while there is no index, as search says it.
      requireSearch(services);
      const index = services.deps.index()!;
      // A token limited to folders (auth/path-rules.ts): a note outside them is not there for
      // it, and the candidates come from inside them only, as search's do (withinPathRules).
      const seed = pathAllowed(currentPathRules(), path) ? index.relatedSeed?.(path) : undefined;
      if (seed === undefined) {
        throw new ApiHttpError('NOT_FOUND', `"${path}" is not in the companion's index`, 'path');
      }
      const filters = withinPathRules(withExclusions({}, services.deps.excludeFolders ?? []));
      const pool = limit * POOL_FACTOR + 10;
      const terms = tokenize(seed.title);
      const vector = seed.meanVector === null ? [] : index.vector(seed.meanVector, filters, pool);
      const keyword = terms.length === 0 ? [] : index.keyword(seed.title, filters, pool);
      return {
        mode: seed.meanVector === null ? 'keyword' : 'hybrid',
        vector: toResults(index, vector, path, limit, terms, (score) => Math.max(0, score)),
        keyword: toResults(index, keyword, path, limit, terms, scaleBy(keyword)),
      };
    },
  );
}

/** Keyword scores (negated BM25, higher better) over the best one: in (0, 1]. */
function scaleBy(hits: readonly ChunkHit[]): (score: number) => number {
  const best = Math.max(0, ...hits.map((hit) => hit.score));
  return (score) => (best > 0 ? Math.max(0, score) / best : 0);
}

function toResults(
  index: SearchIndex,
  hits: readonly ChunkHit[],
  path: string,
  limit: number,
  terms: readonly string[],
  scale: (score: number) => number,
): SearchResult[] {
  const scoreOf = new Map(hits.map((hit) => [hit.chunkId, Math.min(1, scale(hit.score))]));
  return index
    .chunks(hits.map((hit) => hit.chunkId))
    .filter((chunk) => chunk.path !== path)
    .slice(0, limit)
    .map((chunk) => {
      const score = scoreOf.get(chunk.chunkId) ?? 0;
      return { citation: citeChunk(chunk, score, terms), score };
    });
}
