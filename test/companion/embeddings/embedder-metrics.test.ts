import { describe, expect, it } from 'vitest';
import { registerEmbedderMetrics } from '../../../companion/embeddings/embedder-metrics';
import type { ClosableEmbedder } from '../../../companion/embeddings/provider';
import { MetricsRegistry } from '../../../companion/metrics/registry';

/** A worker pool's surface as the gauge sees it; `running` changes as the pool parks. */
class PoolLike implements ClosableEmbedder {
  readonly model = { id: 'm', dims: 2 };
  runtime: 'native' | 'wasm' | undefined = undefined;
  constructor(public running: number) {}
  get runningWorkers(): number {
    return this.running;
  }
  embed = async () => [];
  close = async () => {};
}

describe('registerEmbedderMetrics', () => {
  it('reports the workers holding a model at each scrape', () => {
    const metrics = new MetricsRegistry();
    const embedder = new PoolLike(2);
    registerEmbedderMetrics(metrics, embedder);
    expect(metrics.render()).toContain('cairn_embedding_workers_running 2');
    embedder.running = 0; // the pool went idle
    expect(metrics.render()).toContain('cairn_embedding_workers_running 0');
  });

  it('says which runtime runs the model, once a worker has loaded', () => {
    const metrics = new MetricsRegistry();
    const embedder = new PoolLike(0);
    registerEmbedderMetrics(metrics, embedder);
    expect(metrics.render()).not.toContain('cairn_embedding_runtime{');
    embedder.runtime = 'native';
    expect(metrics.render()).toContain('cairn_embedding_runtime{runtime="native"} 1');
  });

  it('registers nothing for an embedder without workers', () => {
    const metrics = new MetricsRegistry();
    const ollamaLike: ClosableEmbedder = {
      model: { id: 'm', dims: 2 },
      embed: async () => [],
      close: async () => {},
    };
    registerEmbedderMetrics(metrics, ollamaLike);
    expect(metrics.render()).not.toContain('cairn_embedding_workers_running');
  });
});
