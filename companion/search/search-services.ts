import type { Clock, Embedder } from '../../shared/ports';
import type { SearchMode, SearchResult } from '../../shared/protocol/search';
import { ResultSnapshots } from './result-snapshots';
import type { MetricsRegistry } from '../metrics/registry';
import { HybridSearch } from './hybrid-search';
import type { FusionConfig } from './hybrid-search';
import type { Summarizer } from './ollama-summarizer';
import type { SearchIndex } from './search-index';

/** What the search and answer routes need from the composition root. */
export interface SearchDeps {
  /** The vault index, or undefined while it is not available (routes answer 503). */
  index: () => SearchIndex | undefined;
  /** The running embedder (query vectors); absent = keyword-only. */
  embedder?: () => Embedder | undefined;
  /** Phrases answers when `summarize` is asked for; absent = extractive only. */
  summarizer?: Summarizer;
  fusion?: Partial<FusionConfig>;
  /** Folders left out of search and answers (search-exclusions.ts); default none. */
  excludeFolders?: readonly string[];
}

/** One search's whole ranking, as a cursor pages through it. */
export interface RankedResults {
  readonly results: readonly SearchResult[];
  readonly mode: SearchMode;
}

/** Upper bounds (seconds) for one search: keyword ~ms, query embedding ~50–100 ms on USE-lite. */
const SEARCH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Builds searches over the current index and records their latency per mode. */
export class SearchServices {
  private readonly observe: (seconds: number, mode: SearchMode) => void;
  /** Rankings that search cursors page through (result-snapshots.ts). */
  readonly snapshots: ResultSnapshots<RankedResults>;

  constructor(
    readonly deps: SearchDeps,
    metrics: MetricsRegistry,
    readonly clock: Clock,
  ) {
    this.snapshots = new ResultSnapshots<RankedResults>(() => clock.now());
    const histogram = metrics.histogram(
      'cairn_search_duration_seconds',
      'Time to answer one search (query embedding included), by mode.',
      SEARCH_BUCKETS,
      ['mode'],
    );
    this.observe = (seconds, mode) => histogram.observe(seconds, { mode });
  }

  /** A search over the index as it is now, or undefined when there is none. */
  hybridSearch(): HybridSearch | undefined {
    const index = this.deps.index();
    if (index === undefined) return undefined;
    return new HybridSearch({
      index,
      ...(this.deps.embedder ? { embedder: this.deps.embedder } : {}),
      ...(this.deps.fusion ? { fusion: this.deps.fusion } : {}),
      ...(this.deps.excludeFolders ? { excludeFolders: this.deps.excludeFolders } : {}),
      onTiming: this.observe,
    });
  }
}
