/**
 * USE-lite from bytes already in memory: the graph (model.json + shards) and the vocabulary are
 * handed over by the caller, so the same code runs in a Web Worker (the plugin reads the files
 * through Obsidian's adapter and posts them) and in Node (tests read node_modules).
 *
 * The caller sets up the TensorFlow.js backend first (`tf.setBackend('wasm')`): how the wasm
 * binary is found differs between a worker (blob URLs) and Node (a folder path).
 *
 * The companion's `UseLiteEmbedder` wraps this same core (reading the bytes from node_modules),
 * so the plugin's vectors and the companion's are interchangeable: 128-token cap, length-sorted
 * batches, sparse input, unit-length output.
 */
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import type { EmbeddingModel } from '../ports';
import { installBatchedMatMul } from './use-lite-batch-matmul';
import { embedInLengthSortedBatches, sparseTokenBatch, unitLength } from './use-lite-batches';
import { USE_LITE_MODEL } from './use-lite-model';
import { useLiteTokenIds } from './use-lite-tokens';

/** Texts per graph call, as in the companion. */
export const USE_LITE_BATCH = 32;

export interface UseLiteCoreOptions {
  /** Texts per graph call (default {@link USE_LITE_BATCH}). */
  batchSize?: number;
  /**
   * Route the attention's batched products to XNNPACK (use-lite-batch-matmul.ts); default true.
   * Process-wide once installed. False is for measuring and testing against plain tfjs.
   */
  fastMatMul?: boolean;
}

export interface UseLiteBytes {
  /** model.json as UTF-8 bytes. */
  readonly modelJson: ArrayBuffer;
  /** Weight shards by the file name model.json lists them under. */
  readonly shards: ReadonlyMap<string, ArrayBuffer>;
  /** vocab.json as UTF-8 bytes. */
  readonly vocab: ArrayBuffer;
}

interface ModelJson {
  modelTopology: object;
  format?: string;
  weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

/** Parses model.json and pairs it with its shards; names what is missing or malformed. */
function graphArtifacts(bytes: UseLiteBytes): tf.io.ModelArtifacts {
  let json: ModelJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.modelJson)) as ModelJson;
  } catch (error) {
    throw new Error(`model.json is not JSON (${errorText(error)})`);
  }
  if (typeof json.modelTopology !== 'object' || !Array.isArray(json.weightsManifest)) {
    throw new Error('model.json has no modelTopology or weightsManifest');
  }
  const weightData = json.weightsManifest
    .flatMap((group) => group.paths)
    .map((name) => {
      const shard = bytes.shards.get(name);
      if (!shard) throw new Error(`weight shard ${name} (listed in model.json) was not given`);
      return shard;
    });
  return {
    modelTopology: json.modelTopology,
    weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
    weightData,
    ...(json.format === undefined ? {} : { format: json.format }),
  };
}

function vocabulary(bytes: ArrayBuffer): [string, number][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Error(`vocab.json is not JSON (${errorText(error)})`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new Error('vocab.json is not a list of [piece, score] pairs');
  }
  return parsed as [string, number][];
}

export class UseLiteCore {
  readonly model: EmbeddingModel = USE_LITE_MODEL;

  private constructor(
    private readonly graph: GraphModel,
    private readonly tokenizer: Tokenizer,
    private readonly batchSize: number,
  ) {}

  /**
   * Builds the graph and the tokenizer; the backend must already be set.
   */
  static async fromBytes(
    bytes: UseLiteBytes,
    options: UseLiteCoreOptions = {},
  ): Promise<UseLiteCore> {
    const batchSize = options.batchSize ?? USE_LITE_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`USE-lite batchSize must be a positive integer, got ${batchSize}`);
    }
    // Both checked before the graph takes backend memory, so a bad file leaks nothing.
    const tokenizer = new Tokenizer(vocabulary(bytes.vocab));
    const artifacts = graphArtifacts(bytes);
    const graph = await loadGraphModel(tf.io.fromMemory(artifacts));
    if (options.fastMatMul ?? true) installBatchedMatMul();
    return new UseLiteCore(graph, tokenizer, batchSize);
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

  dispose(): void {
    this.graph.dispose();
  }

  /** One graph call: the model takes a sparse [row, position] → token id encoding of the batch. */
  private async runGraph(batch: number[][]): Promise<Float32Array[]> {
    const { total, positions, values } = sparseTokenBatch(batch);
    const inputs = {
      indices: tf.tensor2d(positions, [total, 2], 'int32'),
      values: tf.tensor1d(values, 'int32'),
    };
    let output: tf.Tensor | tf.Tensor[] | undefined;
    try {
      output = await this.graph.executeAsync(inputs);
      const result = Array.isArray(output) ? output[0] : output;
      const dims = this.model.dims;
      if (!result || result.shape.length !== 2 || result.shape[0] !== batch.length) {
        throw new Error(
          `USE-lite returned shape [${result?.shape.join(', ') ?? ''}] for ${batch.length} texts`,
        );
      }
      if (result.shape[1] !== dims) {
        throw new Error(`USE-lite returned ${result.shape[1]} dims; expected ${dims}`);
      }
      const flat = (await result.data()) as Float32Array;
      return batch.map((_, row) => unitLength(flat.subarray(row * dims, (row + 1) * dims)));
    } finally {
      tf.dispose([inputs.indices, inputs.values, ...(output === undefined ? [] : [output].flat())]);
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
