import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { USE_LITE_MODEL } from '../../shared/embeddings/use-lite-model';
import type { BuiltinModelPayload } from './builtin-model-folder';
import type { EmbeddingWorker, FromWorkerMessage } from './builtin-worker-protocol';
import { EmbeddingProviderError } from './http-json';

/*
 * The built-in model (USE-lite) as an `Embedder`, run in a worker so indexing never blocks
 * Obsidian's UI thread. Its model id and size are the companion's, so vectors from either are
 * interchangeable (and vectors of another model are never mixed in: the id is checked against
 * the worker's `ready`).
 *
 * One request at a time, at most 32 texts per message: a long indexing run is cut into turns,
 * so a search query waits for at most one batch.
 */

/** Texts per worker message, the model's own batch size. */
export const BUILTIN_BATCH = 32;

type Pending = {
  readonly id: number;
  readonly count: number;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: Error) => void;
};

export class BuiltinWorkerEmbedder implements Embedder {
  readonly model: EmbeddingModel = USE_LITE_MODEL;
  private pending: Pending | undefined;
  private turn: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private failure: EmbeddingProviderError | undefined;
  private closed = false;

  private constructor(private readonly worker: EmbeddingWorker) {}

  /**
   * Hands the model's bytes to the worker (transferred: the payload's buffers are unusable
   * afterwards) and resolves once it has loaded the model.
   */
  static start(
    worker: EmbeddingWorker,
    payload: BuiltinModelPayload,
  ): Promise<BuiltinWorkerEmbedder> {
    const embedder = new BuiltinWorkerEmbedder(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.listen(
        (message) => {
          if (ready) return embedder.handleReply(message);
          const problem = readyProblem(message, embedder.model);
          if (problem) {
            reject(embedder.fail(problem));
            return;
          }
          ready = true;
          resolve(embedder);
        },
        (message) => {
          const failure = embedder.fail(`the worker failed: ${message}`);
          if (!ready) reject(failure);
        },
      );
      const { modelJson, vocab, shards } = payload;
      worker.send({ type: 'init', modelJson, vocab, shards }, [
        modelJson,
        vocab,
        ...shards.map(([, bytes]) => bytes),
      ]);
    });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    const notString = texts.findIndex((text) => typeof text !== 'string');
    if (notString >= 0) {
      return Promise.reject(new TypeError(`embed: input[${notString}] must be a string`));
    }
    const run = this.turn.then(() => this.embedInBatches(texts));
    // The next request waits for this one whether it succeeds or not.
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Stops the worker; pending and later requests fail. Safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fail('the worker was stopped');
    this.worker.terminate();
  }

  private async embedInBatches(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += BUILTIN_BATCH) {
      out.push(...(await this.embedBatch(texts.slice(start, start + BUILTIN_BATCH))));
    }
    return out;
  }

  private embedBatch(texts: string[]): Promise<Float32Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending = { id, count: texts.length, resolve, reject };
      this.worker.send({ type: 'embed', id, texts }, []);
    });
  }

  private handleReply(message: FromWorkerMessage): void {
    const pending = this.pending;
    if (!pending || !('id' in message) || message.id !== pending.id) return;
    this.pending = undefined;
    if (message.type === 'error') {
      pending.reject(new EmbeddingProviderError(`built-in model: ${message.message}`));
      return;
    }
    const wrong = vectorsProblem(message.vectors, pending.count, this.model.dims);
    if (wrong) pending.reject(new EmbeddingProviderError(`built-in model: ${wrong}`));
    else pending.resolve(message.vectors);
  }

  /** Marks the embedder failed (the first reason wins) and rejects what is pending. */
  private fail(message: string): EmbeddingProviderError {
    const failure = (this.failure ??= new EmbeddingProviderError(`built-in model: ${message}`));
    this.pending?.reject(failure);
    this.pending = undefined;
    return failure;
  }
}

function readyProblem(message: FromWorkerMessage, model: EmbeddingModel): string | undefined {
  if (message.type === 'fatal') return message.message;
  if (message.type !== 'ready') return `the worker sent '${message.type}' before 'ready'`;
  if (message.model.id === model.id && message.model.dims === model.dims) return undefined;
  return `the worker serves ${message.model.id} (${message.model.dims} dims), expected ${model.id} (${model.dims} dims)`;
}

function vectorsProblem(vectors: unknown, count: number, dims: number): string | undefined {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    return `answered ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${count} texts`;
  }
  const wrong = vectors.findIndex((v) => !(v instanceof Float32Array) || v.length !== dims);
  return wrong >= 0 ? `vector ${wrong} is not ${dims} numbers` : undefined;
}
