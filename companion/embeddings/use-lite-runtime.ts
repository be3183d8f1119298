/**
 * Which engine runs the built-in model in a worker: `native` (onnxruntime-node, use-lite-onnx.ts)
 * or `wasm` (TensorFlow.js, use-lite.ts). Both give the same vectors to float rounding, so the
 * choice is about speed only, and an index built on one stays valid on the other.
 *
 * `auto` (the default) takes native when onnxruntime-node loads and the model converts, else
 * wasm, and says why: a missing or broken native install slows embedding down, it does not stop
 * it. On Linux with glibc, `auto` also takes wasm when the worker's process was started without
 * MALLOC_MMAP_THRESHOLD_ (see `nativeIdleMemoryProblem`; the companion's worker processes always
 * have it, embedding-worker-host.ts). `native` makes such a failure an error instead (to be sure of the speed); `wasm` never
 * touches the native runtime.
 *
 * This file holds only names, types and pure rules, so the server's main thread can parse the
 * option without loading either engine; use-lite-loader.ts loads them, in the worker.
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

/**
 * Why `auto` should not pick native in this process, or undefined when nothing stands against
 * it. With glibc, the memory a parked native worker frees stays in the process: measured on the
 * sample vault after five park/wake cycles, 493 MB idle against 174 MB with
 * MALLOC_MMAP_THRESHOLD_=131072, and 238 MB on wasm (docs/embeddings-performance.md). glibc reads
 * the variable only when a process starts, so a process cannot set it for itself: the companion
 * forks its workers with it (embedding-worker-host.ts), and this check remains for workers run
 * as threads (tests, embedding benchmarks).
 */
export function nativeIdleMemoryProblem(
  env: Readonly<Record<string, string | undefined>>,
  glibc: boolean,
): string | undefined {
  if (!glibc || env.MALLOC_MMAP_THRESHOLD_ !== undefined) return undefined;
  return (
    'the companion was started without MALLOC_MMAP_THRESHOLD_, and glibc would then keep the ' +
    'memory of parked native workers (~500 MB idle instead of ~175 MB); start it with ' +
    'MALLOC_MMAP_THRESHOLD_=131072 (the systemd unit and npm start do) for the native runtime'
  );
}
