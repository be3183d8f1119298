/**
 * Search through the paired companion (`GET /api/v1/search`) behind the same VaultSearch face
 * as the device's own index, so the search modal and the chat use either. Phones use it by
 * default when a companion is set (settings `search.delegateToCompanionOnMobile`): the device
 * then holds no index, no vectors and no model worker.
 */
import {
  RelatedResponse,
  RELATED_LIMIT_MAX,
  SearchResponse,
  SEARCH_LIMIT_MAX,
} from '../../shared/protocol/search';
import type { SearchResult } from '../../shared/protocol/search';
import type { Citation } from '../../shared/protocol/citation';
import type { CompanionClient } from '../connection/client';
import { createAnalyzer } from './analyzer';
import type { RelatedChunk, RelatedChunks } from './search-engine';
import type { VaultSearchHit, SearchMode, VaultSearch, VaultSearchOptions } from './vault-search';

/** Raised with the companion's answer when the search could not run there. */
export class CompanionSearchError extends Error {
  readonly code = 'COMPANION_SEARCH_FAILED';
}

const highlightTerms = createAnalyzer({ stemming: false });

export class CompanionVaultSearch implements VaultSearch {
  readonly ready = true;
  private lastMode: SearchMode = 'keyword';

  constructor(private readonly client: Pick<CompanionClient, 'call'>) {}

  get mode(): SearchMode {
    return this.lastMode;
  }

  async search(query: string, options: VaultSearchOptions = {}): Promise<VaultSearchHit[]> {
    if (query.trim() === '') return [];
    const limit = Math.min(options.limit ?? 10, SEARCH_LIMIT_MAX);
    const params = new URLSearchParams({
      q: query,
      // Only some notes (the chat's attachments): ask for more, keep theirs.
      limit: String(options.paths ? SEARCH_LIMIT_MAX : limit),
    });
    if (options.folder) params.set('folder', options.folder);
    if (options.tag) params.set('tag', options.tag.replace(/^#/, ''));
    if (options.type) params.set('type', options.type);
    const answer = await this.client.call('GET', `/api/v1/search?${params}`, SearchResponse);
    if (typeof answer === 'string') throw new CompanionSearchError(`the companion: ${answer}`);
    this.lastMode = answer.mode;
    const only = options.paths ? new Set(options.paths) : null;
    const terms = highlightTerms.terms(query);
    return answer.results
      .filter((result) => only === null || only.has(result.citation.path))
      .slice(0, limit)
      .map((result) => ({
        citation: result.citation,
        chunkId: chunkIdOf(result.citation),
        terms,
        mode: answer.mode,
        ...(result.relevance === undefined ? {} : { relevance: result.relevance }),
      }));
  }

  /**
   * The related-notes view's content candidates from the companion's index
   * (`GET /api/v1/related`): its stored vectors of the note and its title's words. A note the
   * companion has not indexed, or a companion that cannot answer, gives empty lists: the view
   * then ranks by links and tags alone, and the reason is logged.
   */
  async relatedChunks(path: string, limit: number): Promise<RelatedChunks> {
    const params = new URLSearchParams({ path, limit: String(Math.min(limit, RELATED_LIMIT_MAX)) });
    const answer = await this.client.call('GET', `/api/v1/related?${params}`, RelatedResponse);
    if (typeof answer === 'string') {
      console.warn(`Cairn related notes: the companion: ${answer}`);
      return { vector: [], keyword: [], cite: () => undefined };
    }
    const citations = new Map<string, Citation>();
    const toChunks = (results: readonly SearchResult[]): RelatedChunk[] =>
      results.map((result) => {
        const chunkId = chunkIdOf(result.citation);
        citations.set(chunkId, result.citation);
        return { chunkId, path: result.citation.path, score: result.score };
      });
    return {
      vector: toChunks(answer.vector),
      keyword: toChunks(answer.keyword),
      cite: (chunkId) => citations.get(chunkId),
    };
  }
}

function chunkIdOf(citation: VaultSearchHit['citation']): string {
  return citation.type === 'pdf'
    ? `${citation.path}#page=${citation.page}`
    : `${citation.path}#L${citation.lines[0]}`;
}
