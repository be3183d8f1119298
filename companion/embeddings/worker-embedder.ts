/**
 * An `Embedder` that runs the model in a worker thread, so a long indexing run never blocks the
 * server's event loop.
 *
 * - Micro-batching: concurrent `embed()` calls are queued and sent to the worker together, up to
 *   `maxBatchTexts` texts per message. Requests served least go first, so a one-line search
 *   query is not stuck behind a 2,000-chunk indexing request: it rides in the next batch.
 * - Vectors come back as transferred buffers (no copy), one buffer per vector.
 * - A worker error for a batch rejects the requests in that batch with the worker's message.
 * - A pool: with `workers` > 1, each worker takes the next batch when it is free. The model is
 *   single-threaded, so a second worker is what puts a second core to work.
 * - Crash recovery: if a worker dies, it is restarted and the batch it was working on is sent
 *   again. Two crashes in a row (no successful batch in between) mean something is wrong with the
 *   model or the machine: every pending request is rejected and the embedder stays failed.
 * - A query worker (option `queryWorker`): when a small request (a search query) arrives while
 *   every pool worker is busy with bulk texts, one more worker is started that takes small
 *   requests only, so a query never waits for a bulk message to finish. It costs a model's
 *   memory while indexing runs and exits with the others when the pool is idle.
 * - Idle parking: after `idleTimeoutMs` with nothing queued or in flight, every worker is
 *   terminated (each holds ~150 MB of model and wasm heap). The next `embed()` starts workers
 *   again, only as many as the queued work can use; `ready` is false meanwhile, so a search
 *   can answer by keyword instead of waiting ~1 s for the model.
 * - `close()` rejects what is pending and terminates the workers; whoever creates the embedder
 *   registers it on shutdown (Fastify `onClose`).
 *
 * The worker script is a built file (esbuild turns `*.worker.ts` into `dist/companion/*.mjs`):
 * Node cannot run the TypeScript source in a worker. From TypeScript tests, build it first
 * (test/companion/embeddings/worker-build.ts) and pass `workerFile`.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { startEmbeddingWorker } from './embedding-worker-host';
import type { EmbeddingWorker, WorkerHost } from './embedding-worker-host';
import { EmbeddingProviderError } from './provider-error';
import { USE_LITE_MODEL } from './use-lite-model';
import type { EmbedRuntime } from './use-lite-runtime';
import type { EmbedRequestMessage, WorkerReplyMessage } from './worker-protocol';

/**
 * Texts per worker message. A search query waits for a busy worker to finish its message, so
 * this bounds a query's wait while indexing runs (~8 x 20 ms of CPU on the native runtime,
 * ~8 x 50 ms on wasm); on wasm graph calls of 8 cost ~3% more per text than calls of 32, on
 * native no more (scripts/bench-embeddings.mjs).
 */
export const DEFAULT_MAX_BATCH_TEXTS = 8;

/** Requests of at most this many texts (a search query, a chat question) get batches of their own. */
export const SMALL_REQUEST_TEXTS = 4;

function isSmall(request: { readonly texts: readonly string[] }): boolean {
  return request.texts.length <= SMALL_REQUEST_TEXTS;
}

/** Quiet time after which the workers exit and give their memory back. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** The timer behind idle parking; injected by tests (an idle minute should not take a minute). */
export interface IdleTimer {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Node's timers, unref'd: a pending idle check never keeps the process alive. */
export const SYSTEM_IDLE_TIMER: IdleTimer = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Where the built USE-lite worker sits next to the built companion entry point. */
export function defaultUseLiteWorkerFile(): URL {
  return new URL('./use-lite.worker.mjs', import.meta.url);
}

export interface WorkerEmbedderOptions {
  /** The worker script; default: `use-lite.worker.mjs` beside the running bundle. */
  workerFile?: URL | string;
  /** The model the worker serves; checked against the worker's `ready` message. */
  model?: EmbeddingModel;
  /** At most this many texts per message to the worker; default {@link DEFAULT_MAX_BATCH_TEXTS}. */
  maxBatchTexts?: number;
  /**
   * Passed to each worker as `workerData` (the USE-lite worker reads `UseLiteWorkerOptions`:
   * runtime, batchSize).
   */
  workerData?: unknown;
  /** Workers in the pool; default {@link defaultWorkerCount}. Each holds its own model. */
  workers?: number;
  /**
   * Where each worker runs: `thread` (default here) or `process` (a child process; what the
   * companion uses for the built-in model, see embedding-worker-host.ts).
   */
  host?: WorkerHost;
  /**
   * Quiet milliseconds before the workers exit; default {@link DEFAULT_IDLE_TIMEOUT_MS}.
   * `Infinity` keeps them for the embedder's lifetime.
   */
  idleTimeoutMs?: number;
  /** Default {@link SYSTEM_IDLE_TIMER}. */
  idleTimer?: IdleTimer;
  /** Start a worker for small requests when the pool is busy with bulk work; default false. */
  queryWorker?: boolean;
}

/**
 * One worker per core, at most two (each USE-lite worker costs ~150 MB). The model is
 * single-threaded, so this is what puts a second core to work: on the 2-core dev machine two
 * workers embed 1.7–1.9x as fast as one (scripts/bench-embeddings.mjs, runs on a lightly loaded
 * machine). The event loop does not need
 * a core of its own: it shares with the workers, which run only while there is something to
 * embed, and the OS gives it its turn (the bench notes the worst stall of the main thread).
 */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

interface PendingRequest {
  readonly texts: readonly string[];
  /** Index of the first text not yet sent to the worker. */
  nextToSend: number;
  /** How many batches carried some of this request's texts. */
  batchesServed: number;
  received: number;
  readonly vectors: Float32Array[];
  settled: boolean;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: Error) => void;
}

/** A run of consecutive texts of one request inside a batch. */
interface Segment {
  readonly request: PendingRequest;
  readonly offset: number;
  readonly count: number;
}

/** One worker of the pool and the batch it is working on. */
interface Slot {
  worker: EmbeddingWorker | undefined;
  /** Set while a worker for this slot is loading its model. */
  starting: boolean;
  /** The query worker's slot: small requests only, started only when the pool is busy. */
  readonly smallOnly: boolean;
  inFlight: { id: number; segments: Segment[] } | undefined;
}

export class WorkerEmbedder implements Embedder {
  readonly model: EmbeddingModel;
  private readonly workerFile: URL | string;
  private readonly maxBatchTexts: number;
  private readonly workerData: unknown;
  private readonly host: WorkerHost;
  private readonly slots: Slot[];
  private readonly idleTimeoutMs: number;
  private readonly idleTimer: IdleTimer;
  private idleHandle: unknown;
  private idleArmed = false;
  private parkCount = 0;
  private wakeCount = 0;

  private queue: PendingRequest[] = [];
  /** Segments of batches lost in a crash, sent again first. */
  private retry: Segment[] = [];
  private nextMessageId = 1;
  private closed = false;
  private failure: EmbeddingProviderError | undefined;
  private crashedSinceLastSuccess = false;
  private restartCount = 0;
  private loadedRuntime: EmbedRuntime | undefined;
  private loadedFallbackReason: string | undefined;

  private constructor(options: WorkerEmbedderOptions) {
    this.workerFile = options.workerFile ?? defaultUseLiteWorkerFile();
    this.model = options.model ?? USE_LITE_MODEL;
    this.maxBatchTexts = options.maxBatchTexts ?? DEFAULT_MAX_BATCH_TEXTS;
    this.workerData = options.workerData;
    this.host = options.host ?? 'thread';
    const workers = options.workers ?? defaultWorkerCount();
    if (!Number.isInteger(this.maxBatchTexts) || this.maxBatchTexts < 1) {
      throw new RangeError(`maxBatchTexts must be a positive integer, got ${this.maxBatchTexts}`);
    }
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(`workers must be a positive integer, got ${workers}`);
    }
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    if (!(this.idleTimeoutMs > 0)) {
      throw new RangeError(`idleTimeoutMs must be positive, got ${this.idleTimeoutMs}`);
    }
    this.idleTimer = options.idleTimer ?? SYSTEM_IDLE_TIMER;
    this.slots = Array.from({ length: workers + (options.queryWorker ? 1 : 0) }, (_, i) => ({
      worker: undefined,
      starting: false,
      smallOnly: i >= workers,
      inFlight: undefined,
    }));
  }

  /** Starts the workers and resolves once each has loaded its model. */
  static async start(options: WorkerEmbedderOptions = {}): Promise<WorkerEmbedder> {
    const embedder = new WorkerEmbedder(options);
    const path =
      typeof embedder.workerFile === 'string'
        ? embedder.workerFile
        : fileURLToPath(embedder.workerFile);
    if (!existsSync(path)) {
      throw new Error(
        `embedding worker not found at ${path}: build the companion first ` +
          '(`node esbuild.config.mjs production --companion-only`)',
      );
    }
    const started = await Promise.allSettled(
      embedder.slots.filter((slot) => !slot.smallOnly).map((slot) => embedder.spawn(slot)),
    );
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      await embedder.close();
      throw failed.reason;
    }
    embedder.armIdleTimer();
    return embedder;
  }

  /**
   * False while no worker has its model loaded: before the first start completes, and after an
   * idle period until the next `embed()` has brought a worker back.
   */
  get ready(): boolean {
    return this.slots.some((slot) => slot.worker !== undefined);
  }

  /** Workers with a loaded model right now (a gauge: 0 while parked). */
  get runningWorkers(): number {
    return this.slots.filter((slot) => slot.worker !== undefined).length;
  }

  /** How many times the pool was stopped for being idle, and started again on demand. */
  get idleCycles(): { parked: number; woken: number } {
    return { parked: this.parkCount, woken: this.wakeCount };
  }

  /**
   * What runs the model in the workers (`native` or `wasm`), as the last worker to load said;
   * undefined before any has loaded, or for a worker that does not say.
   */
  get runtime(): EmbedRuntime | undefined {
    return this.loadedRuntime;
  }

  /** Why the last worker to load runs wasm although native was wanted (`auto`); else undefined. */
  get fallbackReason(): string | undefined {
    return this.loadedFallbackReason;
  }

  /** How many times a crashed worker was replaced. */
  get restarts(): number {
    return this.restartCount;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) {
      return Promise.reject(
        new EmbeddingProviderError('UNAVAILABLE', 'the embedding worker is closed'),
      );
    }
    if (this.failure) return Promise.reject(this.failure);
    const notString = texts.findIndex((text) => typeof text !== 'string');
    if (notString >= 0) {
      return Promise.reject(
        new TypeError(
          `embed: input[${notString}] must be a string, got ${typeof texts[notString]}`,
        ),
      );
    }
    if (texts.length === 0) return Promise.resolve([]);
    this.disarmIdleTimer();
    return new Promise((resolve, reject) => {
      this.queue.push({
        texts,
        nextToSend: 0,
        batchesServed: 0,
        received: 0,
        vectors: new Array<Float32Array>(texts.length),
        settled: false,
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Rejects pending requests and stops the workers. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.disarmIdleTimer();
    this.failAll(new EmbeddingProviderError('UNAVAILABLE', 'the embedding worker was closed'));
    await this.terminateAll();
  }

  private async terminateAll(): Promise<void> {
    const workers = this.slots.flatMap((slot) => (slot.worker ? [slot.worker] : []));
    for (const slot of this.slots) slot.worker = undefined;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Starts a worker for `slot`; resolves once it is ready and attached. */
  private spawn(slot: Slot): Promise<void> {
    const worker = startEmbeddingWorker(this.host, this.workerFile, this.workerData);
    slot.starting = true;
    const started = new Promise<void>((resolve, reject) => {
      const onEarlyExit = (code: number) =>
        reject(new Error(`embedding worker exited with code ${code} before it was ready`));
      const onEarlyError = (error: Error) => {
        worker.off('exit', onEarlyExit);
        void worker.terminate();
        reject(new Error(`embedding worker failed to start: ${error.message}`));
      };
      const onFirstMessage = (message: WorkerReplyMessage) => {
        worker.off('exit', onEarlyExit);
        worker.off('error', onEarlyError);
        const problem = this.readyProblem(message);
        if (problem) {
          void worker.terminate();
          reject(new Error(problem));
          return;
        }
        if (message.type === 'ready') {
          this.loadedRuntime = message.runtime;
          this.loadedFallbackReason = message.fallbackReason;
        }
        this.attach(slot, worker);
        resolve();
      };
      worker.once('message', onFirstMessage);
      worker.once('error', onEarlyError);
      worker.once('exit', onEarlyExit);
    });
    return started.finally(() => {
      slot.starting = false;
    });
  }

  private readyProblem(message: WorkerReplyMessage): string | undefined {
    if (message.type === 'fatal') return message.message;
    if (message.type !== 'ready') return `embedding worker sent '${message.type}' before 'ready'`;
    const { id, dims } = message.model;
    if (id === this.model.id && dims === this.model.dims) return undefined;
    return `embedding worker serves ${id} (${dims} dims), expected ${this.model.id} (${this.model.dims} dims)`;
  }

  private attach(slot: Slot, worker: EmbeddingWorker): void {
    slot.worker = worker;
    let crashed = false;
    const onCrash = (reason: string) => {
      if (crashed || worker !== slot.worker) return;
      crashed = true;
      this.handleCrash(slot, reason);
    };
    worker.on('message', (message: WorkerReplyMessage) => this.handleReply(slot, message));
    worker.on('error', (error) => onCrash(error.message));
    worker.on('exit', (code) => onCrash(`exited with code ${code}`));
    // An idle worker must not keep the process alive; a busy one must (someone awaits it).
    worker.unref();
  }

  /** Gives every idle worker the next batch, if there is one. */
  private dispatch(): void {
    if (this.closed || this.failure) return;
    this.wakeForQueuedWork();
    for (const slot of this.slots) {
      const worker = slot.worker;
      if (!worker || slot.inFlight) continue;
      const segments =
        this.retry.length > 0 && !slot.smallOnly
          ? this.takeRetry()
          : this.takeBatch(slot.smallOnly);
      if (segments.length === 0) {
        worker.unref();
        continue;
      }
      const id = this.nextMessageId++;
      const texts = segments.flatMap(({ request, offset, count }) =>
        request.texts.slice(offset, offset + count),
      );
      slot.inFlight = { id, segments };
      worker.ref();
      const message: EmbedRequestMessage = { type: 'embed', id, texts };
      worker.postMessage(message);
    }
    this.armIdleTimer();
  }

  /** Nothing queued, nothing in flight, nothing loading. */
  private isIdle(): boolean {
    return (
      this.queue.length === 0 &&
      this.retry.length === 0 &&
      this.slots.every((slot) => !slot.inFlight && !slot.starting)
    );
  }

  /** Starts the idle countdown when the pool has just gone quiet (and has workers to stop). */
  private armIdleTimer(): void {
    if (this.idleArmed || this.closed || !Number.isFinite(this.idleTimeoutMs)) return;
    if (!this.isIdle() || !this.ready) return;
    this.idleArmed = true;
    this.idleHandle = this.idleTimer.set(() => {
      this.idleArmed = false;
      this.park();
    }, this.idleTimeoutMs);
  }

  private disarmIdleTimer(): void {
    if (!this.idleArmed) return;
    this.idleArmed = false;
    this.idleTimer.clear(this.idleHandle);
  }

  /** Stops every worker after a quiet period; `embed()` brings them back. */
  private park(): void {
    if (this.closed || this.failure || !this.isIdle()) return;
    this.parkCount++;
    void this.terminateAll();
  }

  /**
   * Starts stopped workers, as many as the queued work can keep busy: a single search query
   * after a quiet period loads one model, an indexing pass all of them.
   */
  private wakeForQueuedWork(): void {
    const texts = this.queue.reduce(
      (sum, request) => sum + (request.settled ? 0 : request.texts.length - request.nextToSend),
      0,
    );
    const pool = this.slots.filter((slot) => !slot.smallOnly);
    let batches = Math.ceil(texts / this.maxBatchTexts) + (this.retry.length > 0 ? 1 : 0);
    for (const slot of pool) {
      if ((slot.worker && !slot.inFlight) || slot.starting) batches--;
    }
    for (const slot of pool) {
      if (batches <= 0) break;
      if (slot.worker || slot.starting) continue;
      batches--;
      this.wakeUp(slot);
    }
    // Every pool worker is working through a message: a waiting query gets the query worker.
    const querySlot = this.slots.find((slot) => slot.smallOnly);
    const poolBusy = pool.every((slot) => slot.worker && slot.inFlight);
    const queryWaiting = this.queue.some((request) => !request.settled && isSmall(request));
    if (querySlot && !querySlot.worker && !querySlot.starting && poolBusy && queryWaiting) {
      this.wakeUp(querySlot);
    }
  }

  private wakeUp(slot: Slot): void {
    this.wakeCount++;
    this.spawn(slot).then(
      () => this.afterRestart(slot),
      (error: Error) => this.wakeFailed(error),
    );
  }

  /** A worker came back (from idle or after a crash): put it to work, or stop it if too late. */
  private afterRestart(slot: Slot): void {
    if (this.closed || this.failure) {
      const worker = slot.worker;
      slot.worker = undefined;
      void worker?.terminate();
      return;
    }
    this.dispatch();
  }

  /**
   * A worker could not start again after an idle period. If no other worker is alive or
   * loading, the queued requests cannot be served: they fail now, and the next `embed()` tries
   * once more (unlike two crashes in a row, this does not fail the embedder for good).
   */
  private wakeFailed(error: Error): void {
    if (this.closed || this.failure) return;
    if (this.slots.some((slot) => slot.worker || slot.starting)) return;
    this.failAll(
      new EmbeddingProviderError(
        'UNAVAILABLE',
        `the embedding worker could not start again: ${error.message}`,
      ),
    );
  }

  private takeRetry(): Segment[] {
    const segments = this.retry.filter((segment) => !segment.request.settled);
    this.retry = [];
    return segments;
  }

  /**
   * Up to `maxBatchTexts` texts. Requests served least so far go first (stable, so arrival order
   * otherwise): a query that arrives while a big request is being worked through is in the very
   * next batch. Small requests (search queries) and bulk ones never share a batch: a query in
   * a batch with seven chunks would wait for their arithmetic too, ~8x its own.
   */
  private takeBatch(smallOnly = false): Segment[] {
    this.queue = this.queue.filter((request) => !request.settled);
    this.queue.sort((a, b) => a.batchesServed - b.batchesServed);
    const first = smallOnly ? this.queue.find(isSmall) : this.queue[0];
    if (first === undefined) return [];
    const smallBatch = isSmall(first);
    const other = this.queue.filter((request) => isSmall(request) !== smallBatch);
    this.queue = this.queue.filter((request) => isSmall(request) === smallBatch);
    const segments: Segment[] = [];
    let room = this.maxBatchTexts;
    while (room > 0 && this.queue.length > 0) {
      const request = this.queue.shift() as PendingRequest;
      const count = Math.min(room, request.texts.length - request.nextToSend);
      segments.push({ request, offset: request.nextToSend, count });
      request.nextToSend += count;
      request.batchesServed++;
      room -= count;
      if (request.nextToSend < request.texts.length) this.queue.push(request);
    }
    this.queue.push(...other);
    return segments;
  }

  private handleReply(slot: Slot, message: WorkerReplyMessage): void {
    const batch = slot.inFlight;
    if (!batch || !('id' in message) || message.id !== batch.id) return;
    slot.inFlight = undefined;
    if (message.type === 'error') {
      this.rejectSegments(batch.segments, new Error(`embedding failed: ${message.message}`));
    } else if (message.type === 'vectors') {
      const expected = batch.segments.reduce((sum, segment) => sum + segment.count, 0);
      const malformed = this.checkVectors(message.vectors, expected);
      if (malformed) {
        this.rejectSegments(batch.segments, new Error(`embedding worker ${malformed}`));
      } else {
        this.crashedSinceLastSuccess = false;
        this.deliver(batch.segments, message.vectors);
      }
    }
    this.dispatch();
  }

  private checkVectors(vectors: Float32Array[], expected: number): string | undefined {
    if (!Array.isArray(vectors) || vectors.length !== expected) {
      return `returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${expected} texts`;
    }
    const wrong = vectors.findIndex(
      (vector) => !(vector instanceof Float32Array) || vector.length !== this.model.dims,
    );
    return wrong >= 0
      ? `returned a vector of length ${vectors[wrong]?.length} at ${wrong}; expected ${this.model.dims}`
      : undefined;
  }

  private deliver(segments: Segment[], vectors: Float32Array[]): void {
    let k = 0;
    for (const { request, offset, count } of segments) {
      for (let i = 0; i < count; i++) request.vectors[offset + i] = vectors[k++] as Float32Array;
      request.received += count;
      if (!request.settled && request.received === request.texts.length) {
        request.settled = true;
        request.resolve(request.vectors);
      }
    }
  }

  private rejectSegments(segments: Segment[], error: Error): void {
    for (const { request } of segments) this.settleWithError(request, error);
    this.queue = this.queue.filter((request) => !request.settled);
  }

  private settleWithError(request: PendingRequest, error: Error): void {
    if (request.settled) return;
    request.settled = true;
    request.reject(error);
  }

  private failAll(error: Error): void {
    const lost = [...this.slots.flatMap((slot) => slot.inFlight?.segments ?? []), ...this.retry];
    for (const { request } of lost) this.settleWithError(request, error);
    for (const request of this.queue) this.settleWithError(request, error);
    for (const slot of this.slots) slot.inFlight = undefined;
    this.retry = [];
    this.queue = [];
  }

  private giveUp(failure: EmbeddingProviderError): void {
    this.failure = failure;
    this.failAll(failure);
    void this.terminateAll();
  }

  private handleCrash(slot: Slot, reason: string): void {
    slot.worker = undefined;
    if (this.closed || this.failure) return;
    if (this.crashedSinceLastSuccess) {
      this.giveUp(
        new EmbeddingProviderError(
          'UNAVAILABLE',
          `the embedding worker crashed again after a restart (${reason})`,
        ),
      );
      return;
    }
    this.crashedSinceLastSuccess = true;
    this.restartCount++;
    this.retry.push(...(slot.inFlight?.segments ?? []));
    slot.inFlight = undefined;
    // Another worker of the pool may be free to take the lost batch now. The slot is marked
    // as starting first, so that dispatch does not start a second replacement for it.
    slot.starting = true;
    this.dispatch();
    this.spawn(slot).then(
      () => this.afterRestart(slot),
      (error: Error) =>
        this.giveUp(
          new EmbeddingProviderError(
            'UNAVAILABLE',
            `the embedding worker crashed (${reason}) and could not restart: ${error.message}`,
          ),
        ),
    );
  }
}
