import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Embedder } from '../../shared/ports';
import type { Logger } from '../logging';
import type { IndexStore } from './index-store';

export interface EmbeddingQueueOptions {
  /** Texts per `embed` call; the worker pool splits them further. */
  readonly batchSize?: number;
  /** Wait after a failed batch before trying again (an Ollama server restarting). */
  readonly retryDelayMs?: number;
}

/**
 * Texts per `embed` call. The worker embedder sends 8 texts per message to whichever worker is
 * free: a call of 8 would keep one worker busy and leave the second core idle, so a call holds
 * 32 messages' worth, and the last message of a call leaves a worker idle for at most one
 * message's time (~0.4 s). It also bounds the work queued ahead of a search query.
 */
export const DEFAULT_EMBED_BATCH = 256;
const DEFAULT_RETRY_DELAY_MS = 30_000;

/**
 * Embeds, in the background, every chunk text that has no vector for the running model yet,
 * batch by batch, each batch stored in one transaction. Work happens in the embedder (a worker
 * thread or Ollama), so HTTP requests keep being served. Unchanged texts are never embedded
 * twice: vectors are looked up by (text hash, model). Once the running model covers every
 * text, vectors of earlier models are dropped.
 */
export class EmbeddingQueue {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private idleWaiters: Array<() => void> = [];
  /** Texts embedded since start (tests check a restart embeds nothing). */
  embeddedCount = 0;
  lastError: string | null = null;

  constructor(
    private readonly store: IndexStore,
    readonly embedder: Embedder,
    private readonly logger: Logger,
    private readonly options: EmbeddingQueueOptions = {},
  ) {}

  /** Starts a pass unless one is running (which then runs once more at its end). */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.retryTimer) return; // A failed batch waits for its retry.
    this.running = this.run()
      .catch((error: unknown) => {
        // E.g. a model with impossible dimensions, or the database closing under the pass.
        this.lastError = (error as Error).message;
        this.logger.error({ err: { message: this.lastError } }, 'embedding pass failed');
      })
      .finally(() => {
        this.running = null;
        if (this.again && !this.closed) {
          this.again = false;
          this.kick();
        } else this.settle();
      });
  }

  /** Texts still waiting for a vector of the running model. */
  pending(): number {
    const row = this.store.modelRow(this.embedder.model.id);
    return row && row.dims === this.embedder.model.dims
      ? this.store.missingVectorCount(row.id)
      : this.store.distinctTextCount();
  }

  /** Resolves once no pass runs and none is scheduled (a failing embedder counts as idle). */
  whenIdle(): Promise<void> {
    if (!this.running && !this.again) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.running;
    this.settle();
  }

  private settle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? DEFAULT_EMBED_BATCH;
    const model = this.store.ensureModel(this.embedder.model);
    let embedded = 0;
    const started = performance.now();
    // Most passes (every restart) find nothing to embed: the count costs a quarter of the query
    // that gathers texts (it needs no join and no text), so ask it first.
    if (this.store.missingVectorCount(model.id) === 0) {
      this.store.dropModelsExcept(model.id);
      return;
    }
    while (!this.closed) {
      // Shortest first: the model pads each graph call to its longest text, so texts of similar
      // length should share a call. `batch` and `vectors` keep the same order below.
      const batch = this.store
        .missingVectors(model.id, batchSize)
        .sort((a, b) => a.text.length - b.text.length);
      if (batch.length === 0) break;
      let vectors: Float32Array[];
      try {
        vectors = await this.embedder.embed(batch.map((item) => item.text));
        if (vectors.length !== batch.length) {
          throw new Error(`returned ${vectors.length} vectors for ${batch.length} texts`);
        }
      } catch (error) {
        this.lastError = (error as Error).message;
        this.logger.warn(
          { model: model.model, err: { message: this.lastError } },
          'embedding batch failed; keyword search keeps working, retrying later',
        );
        this.scheduleRetry();
        return;
      }
      if (this.closed) return;
      try {
        this.store.storeVectors(
          model,
          batch.map((item, index) => ({ textHash: item.textHash, vector: vectors[index]! })),
        );
      } catch (error) {
        this.lastError = (error as Error).message;
        this.logger.error({ err: { message: this.lastError } }, 'storing vectors failed');
        this.scheduleRetry();
        return;
      }
      this.lastError = null;
      embedded += batch.length;
      this.embeddedCount += batch.length;
      // An embedder that answers synchronously (a cache, a test double) must not hold the
      // event loop for the whole pass.
      await yieldToEventLoop();
    }
    if (this.closed) return;
    if (this.store.missingVectorCount(model.id) === 0) this.store.dropModelsExcept(model.id);
    if (embedded > 0) {
      this.logger.info(
        { model: model.model, embedded, ms: Math.round(performance.now() - started) },
        'embeddings up to date',
      );
    }
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.kick();
    }, this.options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS);
    this.retryTimer.unref();
  }
}
