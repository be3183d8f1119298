/**
 * The chat's Searcher over the plugin's in-vault search (plugin/search VaultSearch). Until the
 * index has loaded, searching says UNAVAILABLE instead of answering from nothing. VaultSearch has
 * no date filter, so `from`/`to` are refused rather than silently ignored.
 */
import { ChatPortError, type Searcher, type SearchHit } from '../../shared/chat/ports';
import type { VaultSearch } from '../search/vault-search';
import type { SearchScope } from './chat-scope';

export class VaultSearcher implements Searcher {
  /** `scope`: the notes or folder the user pointed the chat at (chat-scope.ts), if any. */
  constructor(
    private readonly vaultSearch: VaultSearch,
    private readonly scope: () => SearchScope | undefined = () => undefined,
  ) {}

  async search(request: Parameters<Searcher['search']>[0]): Promise<SearchHit[]> {
    if (!this.vaultSearch.ready) {
      throw new ChatPortError(
        'UNAVAILABLE',
        'the search index is still loading; try again in a moment',
      );
    }
    if (request.from !== undefined || request.to !== undefined) {
      throw new ChatPortError(
        'VALIDATION_ERROR',
        'searching by date is not available in the app yet; leave out from/to',
        request.from !== undefined ? 'from' : 'to',
      );
    }
    const scope = this.scope();
    const folder = request.folder ?? scope?.folder;
    const hits = await this.vaultSearch.search(request.query, {
      ...(request.limit === undefined ? {} : { limit: request.limit }),
      ...(folder === undefined ? {} : { folder }),
      ...(scope?.paths === undefined ? {} : { paths: scope.paths }),
      ...(request.tag === undefined ? {} : { tag: request.tag }),
      ...(request.type === undefined ? {} : { type: request.type }),
    });
    return hits.map((hit) => ({
      citation: hit.citation,
      score: hit.citation.score,
      ...(hit.relevance === undefined ? {} : { relevance: hit.relevance }),
    }));
  }
}
