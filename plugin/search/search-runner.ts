import type { EmbedderChoice } from '../embeddings/embedder-choice';
import type { SearchService } from './search-service';

export interface SearchRunnerOptions {
  /** Picks the embedding provider; asked on every (re)start. */
  chooseEmbedder(): Promise<EmbedderChoice>;
  /** Builds a search service over the chosen provider (not started). */
  createService(choice: EmbedderChoice): SearchService;
  /** Told of each service before it starts, so callers can point at it. */
  onService?(service: SearchService): void;
}

/**
 * Holds the plugin's one search service and can replace it: `start()` again picks the provider
 * again and swaps in a new service over it, closing the old service and releasing its
 * provider (the built-in model's worker). That is how a model downloaded while Obsidian runs
 * turns keyword-only search into hybrid search without reloading the plugin. The new service
 * restores the same persistent index and catches up with the vault, as a plugin start does.
 *
 * Vault events go to whichever service is current; events that arrive while a restart is
 * choosing are caught up by the new service's start-up scan.
 */
export class SearchRunner {
  private service: SearchService | null = null;
  private release: (() => void) | undefined;
  /** Counts starts, so a slow provider check superseded by a newer start is dropped. */
  private generation = 0;
  private closed = false;

  constructor(private readonly options: SearchRunnerOptions) {}

  get current(): SearchService | null {
    return this.service;
  }

  /**
   * Chooses the provider, then builds and starts the service. Called again, it replaces the
   * running service with one over the provider chosen now.
   */
  async start(): Promise<void> {
    const generation = ++this.generation;
    const choice = await this.options.chooseEmbedder();
    const release = choice.kind === 'active' ? choice.close : undefined;
    if (this.closed || generation !== this.generation) {
      release?.();
      return;
    }
    this.stopCurrent();
    const service = this.options.createService(choice);
    this.service = service;
    this.release = release;
    this.options.onService?.(service);
    await service.start();
  }

  /**
   * Stops the running service, lets `clear` delete what it kept (its store must be closed
   * for that), then starts again over the provider chosen now: a rebuild from nothing.
   */
  async rebuild(clear: () => Promise<void>): Promise<void> {
    ++this.generation;
    this.stopCurrent();
    await clear();
    if (this.closed) return;
    await this.start();
  }

  /** Stops the running service and releases its provider, but stays open for start(). */
  stop(): void {
    ++this.generation;
    this.stopCurrent();
  }

  fileChanged(path: string): void {
    this.service?.fileChanged(path);
  }

  fileDeleted(path: string): void {
    this.service?.fileDeleted(path);
  }

  fileRenamed(oldPath: string, newPath: string): void {
    this.service?.fileRenamed(oldPath, newPath);
  }

  /** Stops the service and releases its provider; a start still choosing is dropped. */
  close(): void {
    this.closed = true;
    this.stopCurrent();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private stopCurrent(): void {
    this.service?.close();
    this.service = null;
    const release = this.release;
    this.release = undefined;
    release?.();
  }
}
