/**
 * Which engine runs the built-in model in a worker: `native` (onnxruntime-node, use-lite-onnx.ts)
 * or `wasm` (TensorFlow.js, use-lite.ts). Both give the same vectors to float rounding, so the
 * choice is about speed only, and an index built on one stays valid on the other.
 *
 * `auto` (the default) takes native when onnxruntime-node loads and the model converts, else
 * wasm, and says why: a missing or broken native install slows embedding down, it does not stop
 * it. `native` makes such a failure an error instead (to be sure of the speed); `wasm` never
 * touches the native runtime.
 *
 * This file holds only names and types, so the server's main thread can parse the option
 * without loading either engine; use-lite-loader.ts loads them, in the worker.
 */
export const EMBED_RUNTIMES = ['native', 'wasm'] as const;
export type EmbedRuntime = (typeof EMBED_RUNTIMES)[number];
export type EmbedRuntimeChoice = 'auto' | EmbedRuntime;
export const EMBED_RUNTIME_CHOICES: readonly EmbedRuntimeChoice[] = ['auto', ...EMBED_RUNTIMES];

/** What the USE-lite worker reads from `workerData`. */
export interface UseLiteWorkerOptions {
  /** Default `auto`. */
  runtime?: EmbedRuntimeChoice;
  /** Texts per graph call; each runtime has its own default. */
  batchSize?: number;
  /** wasm only: see `UseLiteCoreOptions.fastMatMul`. */
  fastMatMul?: boolean;
  /** native only: the module to load onnxruntime from (tests name a missing one). */
  runtimeModule?: string;
}
