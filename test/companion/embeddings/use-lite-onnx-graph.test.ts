/**
 * The tfjs → ONNX converter: the real model.json converts (the agreement with the wasm path on
 * real text is use-lite-onnx.test.ts), small graphs run in onnxruntime with TF's semantics, and
 * what the converter does not handle is an error with a code, never a silent guess.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as Ort from 'onnxruntime-node';
import { encodeOnnxModel } from '../../../companion/embeddings/onnx-proto';
import {
  OnnxConversionError,
  convertTfjsGraphToOnnx,
  type TfGraphJson,
  type TfNode,
} from '../../../companion/embeddings/use-lite-onnx-graph';
import { useLiteModelDirectory } from '../../../companion/embeddings/use-lite';

const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof Ort;

const DT_INT64 = 9;
const DT_FLOAT = 1;

/** A TF graph with the model's two placeholders plus `nodes`; int32 constants become weights. */
function graph(
  nodes: TfNode[],
  constants: Record<string, number[]> = {},
): { json: TfGraphJson; weights: Uint8Array } {
  const specs = Object.entries(constants).map(([name, values]) => ({
    name,
    shape: [values.length],
    dtype: 'int32',
  }));
  const data = new Int32Array(Object.values(constants).flat());
  return {
    json: {
      modelTopology: {
        node: [
          { name: 'indices', op: 'Placeholder', attr: { dtype: { type: DT_INT64 } } },
          { name: 'values', op: 'Placeholder', attr: { dtype: { type: DT_INT64 } } },
          ...Object.keys(constants).map((name) => ({ name, op: 'Const' })),
          ...nodes,
        ],
      },
      weightsManifest: [{ paths: ['shard'], weights: specs }],
    },
    weights: new Uint8Array(data.buffer),
  };
}

async function run(
  built: { json: TfGraphJson; weights: Uint8Array },
  indices: number[][],
): Promise<{ dims: readonly number[]; data: number[] }> {
  const session = await ort.InferenceSession.create(
    encodeOnnxModel(convertTfjsGraphToOnnx(built.json, built.weights)),
    { logSeverityLevel: 3 },
  );
  try {
    const flat = BigInt64Array.from(indices.flat(), (value) => BigInt(value));
    const output = (
      await session.run({
        indices: new ort.Tensor('int64', flat, [indices.length, 2]),
        values: new ort.Tensor('int64', new BigInt64Array(indices.length), [indices.length]),
      })
    ).embeddings as Ort.Tensor;
    return { dims: output.dims, data: Array.from(output.data as Float32Array) };
  } finally {
    await session.release();
  }
}

describe('convertTfjsGraphToOnnx', () => {
  it('converts the whole USE-lite graph, weights as initializers', () => {
    const dir = useLiteModelDirectory();
    const json = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as TfGraphJson;
    const shards = json.weightsManifest.flatMap((group) => group.paths);
    const weights = new Uint8Array(
      Buffer.concat(shards.map((name) => readFileSync(join(dir, name)))),
    );
    const model = convertTfjsGraphToOnnx(json, weights);
    expect(model.inputs.map((input) => input.name)).toEqual(['indices', 'values']);
    expect(model.outputs.map((output) => output.name)).toEqual(['embeddings']);
    const floatBytes = model.initializers
      .filter((tensor) => tensor.dataType === 1)
      .reduce((sum, tensor) => sum + tensor.raw.byteLength, 0);
    // Every float weight, once (the 1×1 kernels as matrices instead of 4-D tensors).
    expect(floatBytes).toBeGreaterThan(27_000_000);
    expect(floatBytes).toBeLessThan(weights.byteLength);
    expect(new Set(model.nodes.map((node) => node.opType))).toContain('ScatterND');
  });

  it("slices as TF's StridedSlice does, masks included", async () => {
    // indices[:, 1:2] (begin and end masks on axis 0), as a float column.
    const built = graph(
      [
        {
          name: 'column',
          op: 'StridedSlice',
          input: ['indices', 'begin', 'end', 'strides'],
          attr: { begin_mask: { i: '1' }, end_mask: { i: '1' }, T: { type: DT_INT64 } },
        },
        { name: 'out', op: 'Cast', input: ['column'], attr: { DstT: { type: DT_FLOAT } } },
      ],
      { begin: [0, 1], end: [0, 2], strides: [1, 1] },
    );
    const result = await run(built, [
      [0, 5],
      [1, 7],
      [2, 9],
    ]);
    expect(result.dims).toEqual([3, 1]);
    expect(result.data).toEqual([5, 7, 9]);
  });

  it("scatters as TF's ScatterNd and densifies as SparseToDense", async () => {
    // A [2, 3] matrix with 1 at each (row, column) of `indices`, built two ways and added.
    const built = graph(
      [
        {
          name: 'column0',
          op: 'StridedSlice',
          input: ['indices', 'begin', 'end', 'strides'],
          attr: { begin_mask: { i: '1' }, end_mask: { i: '1' }, shrink_axis_mask: { i: '2' } },
        },
        {
          name: 'scattered',
          op: 'ScatterNd',
          input: ['indices', 'onesLike', 'shape'],
          attr: { T: { type: DT_FLOAT } },
        },
        { name: 'onesLike', op: 'Cast', input: ['positive'], attr: { DstT: { type: DT_FLOAT } } },
        { name: 'positive', op: 'Greater', input: ['plusOne', 'zero'] },
        { name: 'plusOne', op: 'Add', input: ['column0', 'one'] },
        {
          name: 'dense',
          op: 'SparseToDense',
          input: ['indices', 'shape', 'plusOne', 'zero'],
          attr: { validate_indices: { b: true } },
        },
        { name: 'denseFloat', op: 'Cast', input: ['dense'], attr: { DstT: { type: DT_FLOAT } } },
        { name: 'out', op: 'Add', input: ['scattered', 'denseFloat'] },
      ],
      { begin: [0, 0], end: [0, 1], strides: [1, 1], shape: [2, 3], zero: [0], one: [1] },
    );
    // `zero` and `one` are [1]-shaped here; broadcasting makes them act as scalars.
    const result = await run(built, [
      [0, 2],
      [1, 0],
    ]);
    expect(result.dims).toEqual([2, 3]);
    // Row 0 has (0, 2): 1 + (0 + 1); row 1 has (1, 0): 1 + (1 + 1).
    expect(result.data).toEqual([0, 0, 2, 3, 0, 0]);
  });

  it('refuses an op it does not translate, naming it', () => {
    const built = graph([{ name: 'out', op: 'Erf', input: ['indices'] }]);
    expect(() => convertTfjsGraphToOnnx(built.json, built.weights)).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED', message: 'out: TF op Erf' }),
    );
  });

  it('refuses weights that do not add up to the shards', () => {
    const built = graph([{ name: 'out', op: 'Cast', input: ['c'] }], { c: [1, 2] });
    expect(() => convertTfjsGraphToOnnx(built.json, built.weights.subarray(4))).toThrow(
      OnnxConversionError,
    );
    try {
      convertTfjsGraphToOnnx(built.json, new Uint8Array(12));
    } catch (error) {
      expect((error as OnnxConversionError).code).toBe('BAD_MODEL');
    }
  });

  it('refuses a reference to a node that does not exist', () => {
    const built = graph([{ name: 'out', op: 'Cast', input: ['nowhere'] }]);
    expect(() => convertTfjsGraphToOnnx(built.json, built.weights)).toThrow(
      expect.objectContaining({ code: 'BAD_MODEL' }),
    );
  });
});
