/**
 * Messages between `WorkerEmbedder` (main thread) and an embedding worker. Any worker speaking
 * this protocol can sit behind `WorkerEmbedder`; the shipped one is `use-lite.worker.ts`.
 */
import type { EmbeddingModel } from '../../shared/ports';
import type { EmbedRuntime } from './use-lite-runtime';

/** Main thread → worker: embed these texts and answer with the same `id`. */
export interface EmbedRequestMessage {
  type: 'embed';
  id: number;
  texts: string[];
}

/** Worker → main thread. */
export type WorkerReplyMessage =
  /**
   * The model is loaded; sent once, before any reply. `runtime`: what runs it (the USE-lite
   * worker says; other workers may not), and `fallbackReason` when native was wanted but not used.
   */
  | { type: 'ready'; model: EmbeddingModel; runtime?: EmbedRuntime; fallbackReason?: string }
  /** The model could not be loaded; the worker exits after sending this. */
  | { type: 'fatal'; message: string }
  /** One vector per requested text, in order; their buffers are transferred, not copied. */
  | { type: 'vectors'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; message: string };

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
