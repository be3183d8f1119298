import type { Embedder, EmbeddingModel } from '../../shared/ports';

/** Where the idle timer comes from: the window's timers in Obsidian, a manual set in tests. */
export interface IdleTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** An embedder that holds something worth releasing (the built-in model's worker). */
export interface ReleasableEmbedder extends Embedder {
  close(): void;
}

/**
 * The built-in model stops when idle and starts again on demand, as the companion's workers do
 * (`--embed-idle-seconds`): its worker holds ~200 MB, too much to keep on a phone between
 * searches. After `idleMs` with no embedding in flight the loaded embedder is closed; the next
 * call loads it again (reading the model folder and starting a worker: about a second on a
 * desktop, longer on a phone) and waits for it.
 */
export class IdleReleasingEmbedder implements Embedder {
  private current: Promise<ReleasableEmbedder> | null = null;
  private settled = false;
  private timer: unknown = undefined;
  private inFlight = 0;
  private closed = false;
  /** Settles once the last release closed its embedder. */
  private releasing: Promise<void> = Promise.resolve();
  /** How many times the model was loaded; for tests and the bench. */
  loads = 0;

  constructor(
    readonly model: EmbeddingModel,
    private readonly load: () => Promise<ReleasableEmbedder>,
    private readonly idleMs: number,
    /** Null: never released while open (a host with no timers). */
    private readonly timers: IdleTimers | null,
  ) {}

  /** Starts loading now (search starts while the model loads) and arms the idle timer. */
  warmUp(): void {
    this.loaded().catch(() => undefined);
    this.armIdle();
  }

  /** True once the first load settled: later calls may wait for a reload, never for nothing. */
  get ready(): boolean {
    return this.settled;
  }

  /** Whether a loaded model (a worker) is held now. */
  get holding(): boolean {
    return this.current !== null;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) {
      // Closed while loading: the worker is stopped once it exists; answer after that.
      await this.releasing;
      throw new Error('built-in model: the worker was stopped');
    }
    this.disarmIdle();
    this.inFlight++;
    try {
      return await (await this.loaded()).embed(texts);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.armIdle();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.disarmIdle();
    this.release();
  }

  private loaded(): Promise<ReleasableEmbedder> {
    if (this.current) return this.current;
    this.loads++;
    const loading = this.load();
    this.current = loading;
    const settle = () => {
      this.settled = true;
    };
    // A failed load is kept and reported to every call: a download that completes the folder
    // restarts search with a new embedder (no retry loop on a broken folder).
    loading.then(settle, settle);
    return loading;
  }

  private armIdle(): void {
    this.disarmIdle();
    if (this.closed || this.timers === null) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight === 0) this.release();
    }, this.idleMs);
  }

  private disarmIdle(): void {
    if (this.timer === undefined) return;
    this.timers?.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private release(): void {
    const current = this.current;
    this.current = null;
    if (!current) return;
    this.releasing = current.then(
      (embedder) => embedder.close(),
      () => undefined,
    );
  }
}
