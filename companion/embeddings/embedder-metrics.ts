import type { MetricsRegistry } from '../metrics/registry';
import type { ClosableEmbedder } from './provider';

/**
 * `cairn_embedding_workers_running`: built-in model workers holding a loaded model, read at
 * scrape time. It drops to 0 after the idle period (the memory is given back) and rises when
 * indexing or a search needs the model again; with `process_resident_memory_bytes` it shows
 * whether an idle companion is small. Not registered for an embedder without workers (Ollama).
 */
export function registerEmbedderMetrics(
  metrics: MetricsRegistry,
  embedder: ClosableEmbedder,
): void {
  if (embedder.runningWorkers === undefined) return;
  metrics.gauge(
    'cairn_embedding_workers_running',
    'Embedding worker threads with the model loaded (0 while idle).',
    () => embedder.runningWorkers ?? 0,
  );
  // Which engine runs the built-in model: 1 for the one in use (native is ~3x faster), so a
  // dashboard shows a companion that fell back to wasm. Nothing before a worker has loaded.
  metrics.gauge(
    'cairn_embedding_runtime',
    'The engine running the built-in embedding model (1 = in use): native or wasm.',
    () =>
      embedder.runtime === undefined ? [] : [{ labels: { runtime: embedder.runtime }, value: 1 }],
  );
}
