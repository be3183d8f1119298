// Public surface of companion/indexer: what server.ts, search and the scheduler use.
export { VaultIndexer, DEFAULT_DEBOUNCE_MS, DEFAULT_RESCAN_INTERVAL_MS } from './vault-indexer';
export type { VaultIndexerOptions } from './vault-indexer';
export type { VaultChange } from '../vault/vault-change';
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
