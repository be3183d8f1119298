/**
 * The built-in model (USE-lite) on onnxruntime's native CPU kernels instead of TensorFlow.js's
 * wasm backend: same weights, same tokens, same batches, vectors equal to float rounding
 * (cosine ≥ 0.9999 on every chunk, measured and tested: docs/embeddings-performance.md).
 *
 * Why: wasm SIMD has 128-bit vectors and no fused multiply-add, so the wasm path tops out near
 * ~26 chunks/s per core; onnxruntime's MLAS runs the same products with AVX2/AVX-512 FMA.
 *
 * How: `onnxruntime-node` (npm; its CPU binaries ship inside the package, nothing is downloaded)
 * needs an ONNX model, and the package ships a tfjs graph. `use-lite-onnx-graph.ts` translates
 * model.json op by op when the model loads (~0.1 s, in memory; nothing is written to disk) and
 * the session is created from those bytes. Tokenizing stays in JS (the same tokenizer and
 * 128-token cap as the wasm path), and the graph keeps its sparse input, so the whole model,
 * padding masks included, runs as it does in tfjs.
 *
 * One thread per session: the companion's parallelism is across worker threads (one model per
 * worker), and a second intra-op thread per worker would only fight the other worker for cores.
 *
 * Companion only: the plugin runs in Obsidian (desktop and mobile), where no native addon loads,
 * and keeps the wasm path.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import {
  embedInLengthSortedBatches,
  sparseTokenBatch,
  unitLength,
} from '../../shared/embeddings/use-lite-batches';
import type { Embedder } from '../../shared/ports';
import { encodeOnnxModel } from './onnx-proto';
import {
  USE_LITE_ONNX_INPUTS,
  USE_LITE_ONNX_OUTPUT,
  convertTfjsGraphToOnnx,
  type TfGraphJson,
} from './use-lite-onnx-graph';
import { USE_LITE_MODEL } from './use-lite-model';
import { useLiteTokenIds } from './use-lite-tokens';
import { useLiteModelDirectory } from './use-lite';

/** The package that provides the native runtime. */
export const ONNX_RUNTIME_MODULE = 'onnxruntime-node';

/**
 * Texts per graph call. The worker's messages hold at most 8 texts anyway; on one thread, calls
 * of 4–8 cost no more CPU per chunk than calls of 32 (scripts/bench-embeddings.mjs), and keep a
 * call's activations (~6 MB at 8 × 128 tokens) nearer the cache.
 */
export const USE_LITE_ONNX_DEFAULT_BATCH = 8;

export type UseLiteNativeErrorCode =
  /** `onnxruntime-node` is not installed, or its binary does not load on this platform. */
  | 'RUNTIME_UNAVAILABLE'
  /** model.json could not be read or translated to ONNX. */
  | 'MODEL_CONVERSION'
  /** onnxruntime refused the converted model, or a run failed. */
  | 'SESSION';

export class UseLiteNativeError extends Error {
  override readonly name = 'UseLiteNativeError';

  constructor(
    readonly code: UseLiteNativeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface UseLiteOnnxOptions {
  /** Texts per graph call; default {@link USE_LITE_ONNX_DEFAULT_BATCH}. */
  batchSize?: number;
  /**
   * The module to load the runtime from; default {@link ONNX_RUNTIME_MODULE}. Tests name a
   * missing one to exercise the fallback without uninstalling the package.
   */
  runtimeModule?: string;
}

// Not named `require`: the companion bundle's banner already declares one.
const requireFromHere = createRequire(import.meta.url);

/** Loads onnxruntime-node, or says why it cannot be used here. */
export function loadOnnxRuntime(moduleName: string = ONNX_RUNTIME_MODULE): typeof Ort {
  try {
    return requireFromHere(moduleName) as typeof Ort;
  } catch (error) {
    // The first line says what failed; Node's "Require stack" lines after it are noise in a log.
    const reason = errorText(error).split('\n')[0];
    throw new UseLiteNativeError(
      'RUNTIME_UNAVAILABLE',
      `${moduleName} could not be loaded (${reason})`,
      {
        cause: error,
      },
    );
  }
}

/** The ONNX bytes of the package's USE-lite graph, and the vocabulary beside it. */
async function readAndConvert(dir: string): Promise<{ model: Uint8Array; vocab: unknown }> {
  try {
    const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as TfGraphJson;
    const shardNames = json.weightsManifest.flatMap((group) => group.paths);
    const [shards, vocabText] = await Promise.all([
      Promise.all(shardNames.map((name) => readFile(join(dir, name)))),
      readFile(join(dir, 'vocab.json'), 'utf8'),
    ]);
    const weightData = new Uint8Array(Buffer.concat(shards));
    return {
      model: encodeOnnxModel(convertTfjsGraphToOnnx(json, weightData)),
      vocab: JSON.parse(vocabText) as unknown,
    };
  } catch (error) {
    throw new UseLiteNativeError(
      'MODEL_CONVERSION',
      `USE-lite in ${dir} could not be converted to ONNX (${errorText(error)})`,
      { cause: error },
    );
  }
}

export class UseLiteOnnxEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;

  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly batchSize: number,
  ) {}

  static async load(options: UseLiteOnnxOptions = {}): Promise<UseLiteOnnxEmbedder> {
    const batchSize = options.batchSize ?? USE_LITE_ONNX_DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`USE-lite batchSize must be a positive integer, got ${batchSize}`);
    }
    // The runtime first: when it is missing, nothing else is worth reading.
    const ort = loadOnnxRuntime(options.runtimeModule);
    const dir = useLiteModelDirectory();
    const { model, vocab } = await readAndConvert(dir);
    if (!Array.isArray(vocab) || vocab.length === 0) {
      throw new UseLiteNativeError('MODEL_CONVERSION', `${dir}/vocab.json is not a vocabulary`);
    }
    let session: Ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(model, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        // Warnings only: onnxruntime's info lines about the converted graph are noise here.
        logSeverityLevel: 3,
      });
    } catch (error) {
      throw new UseLiteNativeError(
        'SESSION',
        `onnxruntime refused the converted USE-lite model (${errorText(error)})`,
        { cause: error },
      );
    }
    return new UseLiteOnnxEmbedder(
      ort,
      session,
      new Tokenizer(vocab as [string, number][]),
      batchSize,
    );
  }

  /** One unit-length vector per text, in order; at most `batchSize` texts per graph call. */
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return embedInLengthSortedBatches(
      texts,
      (text) => useLiteTokenIds(this.tokenizer, text),
      this.batchSize,
      (batch) => this.runGraph(batch),
    );
  }

  /** Releases the session's native memory. */
  async dispose(): Promise<void> {
    await this.session.release();
  }

  /** One graph call on the sparse [row, position] → token id encoding the graph takes. */
  private async runGraph(batch: number[][]): Promise<Float32Array[]> {
    const sparse = sparseTokenBatch(batch);
    const total = sparse.total;
    // The converted graph keeps TensorFlow's int64 sparse indices.
    const positions = BigInt64Array.from(sparse.positions, (n) => BigInt(n));
    const values = BigInt64Array.from(sparse.values, (n) => BigInt(n));
    const feeds = {
      [USE_LITE_ONNX_INPUTS.indices]: new this.ort.Tensor('int64', positions, [total, 2]),
      [USE_LITE_ONNX_INPUTS.values]: new this.ort.Tensor('int64', values, [total]),
    };
    let output: Ort.Tensor | undefined;
    try {
      output = (await this.session.run(feeds))[USE_LITE_ONNX_OUTPUT];
    } catch (error) {
      throw new UseLiteNativeError(
        'SESSION',
        `USE-lite (onnxruntime) failed: ${errorText(error)}`,
        {
          cause: error,
        },
      );
    }
    const dims = this.model.dims;
    if (!output || output.dims.length !== 2 || output.dims[0] !== batch.length) {
      throw new UseLiteNativeError(
        'SESSION',
        `USE-lite returned shape [${output?.dims.join(', ') ?? ''}] for ${batch.length} texts`,
      );
    }
    if (output.dims[1] !== dims) {
      throw new UseLiteNativeError(
        'SESSION',
        `USE-lite returned ${output.dims[1]} dims; expected ${dims}`,
      );
    }
    const flat = output.data as Float32Array;
    return batch.map((_, row) => unitLength(flat.subarray(row * dims, (row + 1) * dims)));
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
