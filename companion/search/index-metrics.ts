import type { MetricsRegistry } from '../metrics/registry';
import type { VaultIndexer } from './vault-indexer';

/** Index size and health in `/metrics`, read from the tables at scrape time. */
export function registerIndexMetrics(registry: MetricsRegistry, indexer: VaultIndexer): void {
  const live =
    <T>(read: () => T, fallback: T) =>
    () => {
      try {
        return read();
      } catch {
        return fallback; // The database closed under a late scrape.
      }
    };
  registry.gauge(
    'cairn_index_files',
    'Vault files indexed (failed files not counted).',
    live(() => indexer.store.fileCount(), 0),
  );
  registry.gauge(
    'cairn_index_chunks',
    'Chunks (search units) in the index.',
    live(() => indexer.store.chunkCount(), 0),
  );
  registry.gauge(
    'cairn_index_failed_files',
    'Vault files that could not be indexed.',
    live(() => indexer.store.failedCount(), 0),
  );
  registry.gauge(
    'cairn_index_pending_files',
    'Files waiting to be (re)indexed.',
    live(() => indexer.pending, 0),
  );
  registry.gauge(
    'cairn_index_embeddings_pending',
    'Chunk texts waiting for a vector of the running embedding model.',
    live(() => indexer.embeddings?.pending() ?? 0, 0),
  );
}
