import type { Embedder } from '../../shared/ports';
import { ExcludeRules } from '../../shared/search/exclude-rules';
import type { NoteProblem } from './note-input';
import type { TimeSlicer } from './time-slicer';
import { createSearchEngine } from './search-engine';
import type { RelatedChunks, SearchEngine } from './search-engine';
import { SearchStore } from './search-store';
import { DeviceIndexer } from './device-indexer';
import type { IndexProgress, PathExclusions, VaultSource } from './device-indexer';
import type { VaultSearchHit, SearchMode, VaultSearch, VaultSearchOptions } from './vault-search';

export interface SearchServiceOptions {
  /** Tells vaults apart in IndexedDB (Obsidian's `app.appId`). */
  vaultKey: string;
  source: VaultSource;
  scheduler: TimeSlicer;
  excludeGlobs: readonly string[];
  /** Paths left out beyond the globs: saved chats, Obsidian's Excluded files (index-exclusions.ts). */
  alsoExcludes?: (path: string) => boolean;
  /** The active provider, or null for keyword only. */
  embedder: Embedder | null;
  /** Why there is no provider (shown next to "keyword only"). */
  keywordOnlyReason?: string;
  onProgress?: (progress: IndexProgress) => void;
  onProblem?: (problem: NoteProblem) => void;
}

/**
 * The plugin's VaultSearch: an engine kept current by an indexer over a persistent store.
 * Built by the composition root after layout-ready; `close()` stops all background work.
 */
export class SearchService implements VaultSearch {
  private readonly engine: SearchEngine;
  private indexer: DeviceIndexer | undefined;
  private store: SearchStore | undefined;
  private closed = false;

  constructor(private readonly options: SearchServiceOptions) {
    this.engine = createSearchEngine({
      embedder: options.embedder,
      onVectorError: (error) =>
        options.onProblem?.({
          path: '',
          message: `semantic search unavailable for this query: ${error.message}`,
        }),
    });
  }

  get ready(): boolean {
    return this.indexer?.ready ?? false;
  }

  get mode(): SearchMode {
    return this.engine.mode;
  }

  /** A short description for the search modal: which model ranks, or why keyword only. */
  get modeLabel(): string {
    if (this.engine.model) return `hybrid: keyword + ${this.engine.model.id}`;
    return this.options.keywordOnlyReason
      ? `keyword only (${this.options.keywordOnlyReason})`
      : 'keyword only';
  }

  get progress(): IndexProgress {
    return this.indexer?.state ?? { phase: 'loading', done: 0, total: 0 };
  }

  /** Opens the store, restores the index and catches up with the vault. */
  async start(): Promise<void> {
    const store = await SearchStore.open(this.options.vaultKey);
    if (this.closed) {
      store.close();
      return;
    }
    this.store = store;
    this.indexer = new DeviceIndexer({
      source: this.options.source,
      store,
      engine: this.engine,
      embedder: this.options.embedder,
      scheduler: this.options.scheduler,
      exclude: combinedExclusions(
        new ExcludeRules(this.options.excludeGlobs),
        this.options.alsoExcludes,
      ),
      ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
      ...(this.options.onProblem ? { onProblem: this.options.onProblem } : {}),
    });
    try {
      await this.indexer.start();
    } catch (error) {
      // Closing mid-way closes the store under the indexer; that is not a failure to report.
      if (!this.closed) throw error;
    }
  }

  fileChanged(path: string): void {
    this.indexer?.fileChanged(path);
  }

  fileDeleted(path: string): void {
    this.indexer?.fileDeleted(path);
  }

  fileRenamed(oldPath: string, newPath: string): void {
    this.indexer?.fileRenamed(oldPath, newPath);
  }

  search(query: string, options?: VaultSearchOptions): Promise<VaultSearchHit[]> {
    if (!this.ready) return Promise.resolve([]);
    return this.engine.search(query, options);
  }

  /**
   * Other notes' chunks like `path`'s (the related-notes view); null until every stored note
   * is restored (a search can answer earlier, but a ranking of whole notes would miss some).
   */
  relatedChunks(path: string, limit: number): RelatedChunks | null {
    if (!this.indexer?.restored) return null;
    return this.engine.relatedChunks(path, limit);
  }

  /** Waits for queued indexing and embedding (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.indexer?.idle();
  }

  close(): void {
    this.closed = true;
    this.indexer?.stop();
    this.store?.close();
  }
}

function combinedExclusions(
  rules: ExcludeRules,
  also: ((path: string) => boolean) | undefined,
): PathExclusions {
  if (also === undefined) return rules;
  return { excludes: (path) => rules.excludes(path) || also(path) };
}
