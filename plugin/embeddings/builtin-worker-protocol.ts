import type { EmbeddingModel } from '../../shared/ports';

/*
 * Messages between the plugin and its built-in model worker. The worker gets the model's bytes
 * (its weights; the wasm binaries are embedded in the worker's script) once (`init`, buffers transferred), answers `ready` or `fatal`, then one `embed` at a time.
 */

export interface InitMessage {
  readonly type: 'init';
  readonly modelJson: ArrayBuffer;
  readonly vocab: ArrayBuffer;
  readonly shards: [string, ArrayBuffer][];
}

export interface EmbedMessage {
  readonly type: 'embed';
  readonly id: number;
  readonly texts: string[];
}

export type ToWorkerMessage = InitMessage | EmbedMessage;

export type FromWorkerMessage =
  | { readonly type: 'ready'; readonly model: EmbeddingModel }
  | { readonly type: 'fatal'; readonly message: string }
  | { readonly type: 'vectors'; readonly id: number; readonly vectors: Float32Array[] }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

/** The two-way channel to a worker, whatever runs it (a Web Worker, or in-process in tests). */
export interface EmbeddingWorker {
  send(message: ToWorkerMessage, transfer: Transferable[]): void;
  /** Called once: replies, and failures of the worker itself (a script error, a crash). */
  listen(
    onMessage: (message: FromWorkerMessage) => void,
    onFailure: (message: string) => void,
  ): void;
  terminate(): void;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
