// Public surface of companion/indexer: what server.ts, search and the scheduler use.
export { VaultIndexer, DEFAULT_DEBOUNCE_MS, DEFAULT_RESCAN_INTERVAL_MS } from './vault-indexer';
export type { VaultIndexerOptions } from './vault-indexer';
export type { IndexChange } from './vault-indexer';
export { SqliteIndexQueries, DEFAULT_COLUMN_WEIGHTS, QUERYABLE_COVERAGE } from './index-queries';
export type {
  ChunkHit,
  ColumnWeights,
  IndexFilters,
  IndexQueries,
  IndexQueriesOptions,
  IndexedChunk,
} from './index-queries';
export { registerIndexMetrics } from './index-metrics';
export { toFtsQuery } from './fts-query';
export type { SearchServices } from './search-services';
export { requireSearch } from './search-routes';
export type { IndexAfterWrite } from './index-after-write';
export { answerQuestion } from './answer-service';
export type { HybridSearch } from './hybrid-search';
export { toIndexFilters } from './request-filters';
export type { Summarizer } from './ollama-summarizer';
export { decisionsOf } from './answer-routes';
export { CompanionAnswerer, CompanionSearcher } from './search-tool-ports';
