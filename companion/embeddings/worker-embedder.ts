/**
 * An `Embedder` that runs the model in a worker thread, so a long indexing run never blocks the
 * server's event loop.
 *
 * - Micro-batching: concurrent `embed()` calls are queued and sent to the worker together, up to
 *   `maxBatchTexts` texts per message. Requests served least go first, so a one-line search
 *   query is not stuck behind a 2,000-chunk indexing request: it rides in the next batch.
 * - Vectors come back as transferred buffers (no copy), one buffer per vector.
 * - A worker error for a batch rejects the requests in that batch with the worker's message.
 * - Crash recovery: if the worker dies, it is restarted and the batch it was working on is sent
 *   again. Two crashes in a row (no successful batch in between) mean something is wrong with the
 *   model or the machine: every pending request is rejected and the embedder stays failed.
 * - `close()` rejects what is pending and terminates the worker; whoever creates the embedder
 *   registers it on shutdown (Fastify `onClose`).
 *
 * The worker script is a built file (esbuild turns `*.worker.ts` into `dist/companion/*.mjs`):
 * Node cannot run the TypeScript source in a worker. From TypeScript tests, build it first
 * (test/companion/embeddings/worker-build.ts) and pass `workerFile`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { EmbeddingProviderError } from './provider-error';
import { USE_LITE_MODEL } from './use-lite';
import type { EmbedRequestMessage, WorkerReplyMessage } from './worker-protocol';

/** Texts per worker message. Enough to amortise message overhead, small enough to take turns. */
export const DEFAULT_MAX_BATCH_TEXTS = 32;

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
  /** Passed to the worker as `workerData` (the USE-lite worker reads `{ batchSize }`). */
  workerData?: unknown;
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

export class WorkerEmbedder implements Embedder {
  readonly model: EmbeddingModel;
  private readonly workerFile: URL | string;
  private readonly maxBatchTexts: number;
  private readonly workerData: unknown;

  private worker: Worker | undefined;
  private queue: PendingRequest[] = [];
  /** Segments of a batch lost in a crash, sent again first. */
  private retry: Segment[] = [];
  private inFlight: { id: number; segments: Segment[] } | undefined;
  private nextMessageId = 1;
  private closed = false;
  private failure: EmbeddingProviderError | undefined;
  private crashedSinceLastSuccess = false;
  private restartCount = 0;

  private constructor(options: WorkerEmbedderOptions) {
    this.workerFile = options.workerFile ?? defaultUseLiteWorkerFile();
    this.model = options.model ?? USE_LITE_MODEL;
    this.maxBatchTexts = options.maxBatchTexts ?? DEFAULT_MAX_BATCH_TEXTS;
    this.workerData = options.workerData;
    if (!Number.isInteger(this.maxBatchTexts) || this.maxBatchTexts < 1) {
      throw new RangeError(`maxBatchTexts must be a positive integer, got ${this.maxBatchTexts}`);
    }
  }

  /** Starts the worker and resolves once its model is loaded. */
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
    await embedder.spawn();
    return embedder;
  }

  /** How many times a crashed worker was replaced. */
  get restarts(): number {
    return this.restartCount;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed)
      return Promise.reject(
        new EmbeddingProviderError('UNAVAILABLE', 'the embedding worker is closed'),
      );
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

  /** Rejects pending requests and stops the worker. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new EmbeddingProviderError('UNAVAILABLE', 'the embedding worker was closed'));
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private spawn(): Promise<Worker> {
    const worker = new Worker(this.workerFile, { workerData: this.workerData });
    return new Promise((resolve, reject) => {
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
        if (message.type === 'ready') {
          const { id, dims } = message.model;
          if (id !== this.model.id || dims !== this.model.dims) {
            void worker.terminate();
            reject(
              new Error(
                `embedding worker serves ${id} (${dims} dims), expected ${this.model.id} (${this.model.dims} dims)`,
              ),
            );
            return;
          }
          this.attach(worker);
          resolve(worker);
          return;
        }
        void worker.terminate();
        reject(
          new Error(
            message.type === 'fatal'
              ? message.message
              : `embedding worker sent '${message.type}' before 'ready'`,
          ),
        );
      };
      worker.once('message', onFirstMessage);
      worker.once('error', onEarlyError);
      worker.once('exit', onEarlyExit);
    });
  }

  private attach(worker: Worker): void {
    this.worker = worker;
    let crashed = false;
    const onCrash = (reason: string) => {
      if (crashed || worker !== this.worker) return;
      crashed = true;
      this.handleCrash(reason);
    };
    worker.on('message', (message: WorkerReplyMessage) => this.handleReply(message));
    worker.on('error', (error) => onCrash(error.message));
    worker.on('exit', (code) => onCrash(`exited with code ${code}`));
    // An idle worker must not keep the process alive; a busy one must (someone awaits it).
    worker.unref();
  }

  private dispatch(): void {
    const worker = this.worker;
    if (!worker || this.inFlight || this.closed) return;
    const segments = this.retry.length > 0 ? this.takeRetry() : this.takeBatch();
    if (segments.length === 0) {
      worker.unref();
      return;
    }
    const id = this.nextMessageId++;
    const texts = segments.flatMap(({ request, offset, count }) =>
      request.texts.slice(offset, offset + count),
    );
    this.inFlight = { id, segments };
    worker.ref();
    const message: EmbedRequestMessage = { type: 'embed', id, texts };
    worker.postMessage(message);
  }

  private takeRetry(): Segment[] {
    const segments = this.retry.filter((segment) => !segment.request.settled);
    this.retry = [];
    return segments;
  }

  /**
   * Up to `maxBatchTexts` texts. Requests served least so far go first (stable, so arrival order
   * otherwise): a query that arrives while a big request is being worked through is in the very
   * next batch.
   */
  private takeBatch(): Segment[] {
    this.queue.sort((a, b) => a.batchesServed - b.batchesServed);
    const segments: Segment[] = [];
    let room = this.maxBatchTexts;
    while (room > 0 && this.queue.length > 0) {
      const request = this.queue.shift() as PendingRequest;
      if (request.settled) continue;
      const count = Math.min(room, request.texts.length - request.nextToSend);
      segments.push({ request, offset: request.nextToSend, count });
      request.nextToSend += count;
      request.batchesServed++;
      room -= count;
      if (request.nextToSend < request.texts.length) this.queue.push(request);
    }
    return segments;
  }

  private handleReply(message: WorkerReplyMessage): void {
    const batch = this.inFlight;
    if (!batch || !('id' in message) || message.id !== batch.id) return;
    this.inFlight = undefined;
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
    const lost = [...(this.inFlight?.segments ?? []), ...this.retry];
    for (const { request } of lost) this.settleWithError(request, error);
    for (const request of this.queue) this.settleWithError(request, error);
    this.inFlight = undefined;
    this.retry = [];
    this.queue = [];
  }

  private handleCrash(reason: string): void {
    this.worker = undefined;
    if (this.closed) return;
    if (this.crashedSinceLastSuccess) {
      const failure = new EmbeddingProviderError(
        'UNAVAILABLE',
        `the embedding worker crashed again after a restart (${reason})`,
      );
      this.failure = failure;
      this.failAll(failure);
      return;
    }
    this.crashedSinceLastSuccess = true;
    this.restartCount++;
    this.retry = this.inFlight?.segments ?? [];
    this.inFlight = undefined;
    this.spawn().then(
      (worker) => {
        if (this.closed) {
          this.worker = undefined;
          void worker.terminate();
          return;
        }
        this.dispatch();
      },
      (error: Error) => {
        const failure = new EmbeddingProviderError(
          'UNAVAILABLE',
          `the embedding worker crashed (${reason}) and could not restart: ${error.message}`,
        );
        this.failure = failure;
        this.failAll(failure);
      },
    );
  }
}
