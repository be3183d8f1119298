/**
 * Translates USE-lite's TensorFlow.js graph (model.json + weight shards) into an ONNX model,
 * op by op, so onnxruntime's native kernels can run the very same computation. There is no
 * Python here (tf2onnx), and the graph is small and fixed: 317 nodes, 40 op types besides its
 * constants and inputs, every shape-dependent input (axes, permutations, slice bounds) a
 * constant. Each TF op becomes the ONNX op(s) with the same semantics, so the vectors agree
 * with the wasm path to float rounding (docs/embeddings-performance.md has the measured
 * agreement). An op, attribute or configuration not handled here is an error, not a guess: a
 * different model.json fails loudly at load time and the companion falls back to wasm.
 *
 * Integer tensors: TF mixes int32 and int64 (shapes are int32, the sparse input is int64);
 * ONNX wants int64 for shapes, indices and axes. Every TF integer tensor therefore becomes an
 * ONNX int64 tensor. The values involved (shapes, positions, token ids) are far below 2^31.
 */
import {
  OnnxDataType,
  type OnnxAttributeValue,
  type OnnxModel,
  type OnnxNode,
  type OnnxTensor,
} from './onnx-proto';

/** Opset 18: every reduction takes its axes as an input, so all reductions are written alike. */
export const USE_LITE_ONNX_OPSET = 18;
/** IR version 8 is the one that goes with opset 18. */
const IR_VERSION = 8;

/** The graph's two inputs (the sparse [row, position] → token id encoding) and its output. */
export const USE_LITE_ONNX_INPUTS = { indices: 'indices', values: 'values' } as const;
export const USE_LITE_ONNX_OUTPUT = 'embeddings';

export type OnnxConversionErrorCode =
  /** model.json is not a TF graph as tfjs-converter writes it, or its weights do not add up. */
  | 'BAD_MODEL'
  /** The graph uses an op, attribute value or dtype this converter does not translate. */
  | 'UNSUPPORTED';

export class OnnxConversionError extends Error {
  override readonly name = 'OnnxConversionError';

  constructor(
    readonly code: OnnxConversionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** One attribute as tfjs-converter writes it (the JSON form of TF's AttrValue). */
interface TfAttr {
  i?: string | number;
  f?: number;
  b?: boolean;
  s?: number[] | string;
  type?: number | string;
  list?: { i?: (string | number)[] };
  tensor?: unknown;
  shape?: unknown;
}

export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttr>;
}

export interface TfWeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

export interface TfGraphJson {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeightSpec[] }[];
}

/** A constant of the TF graph, decoded: float32 stays float32, integers become int64. */
interface TfConstant {
  readonly dataType: OnnxDataType;
  readonly dims: readonly number[];
  readonly ints?: BigInt64Array;
  /** The weight's bytes as stored (float32 only; used as the initializer's raw data). */
  readonly raw?: Uint8Array;
}

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const INT64_MIN = -0x8000_0000_0000_0000n;

/** TF DataType enum → ONNX, with every integer width mapped to int64 (see the file comment). */
function onnxTypeOfTf(type: number | string | undefined, where: string): OnnxDataType {
  switch (type) {
    case 1:
    case 'DT_FLOAT':
      return OnnxDataType.FLOAT;
    case 3:
    case 9:
    case 'DT_INT32':
    case 'DT_INT64':
      return OnnxDataType.INT64;
    case 10:
    case 'DT_BOOL':
      return OnnxDataType.BOOL;
    default:
      throw new OnnxConversionError('UNSUPPORTED', `${where}: TF dtype ${String(type)}`);
  }
}

/** Splits the concatenated shard bytes into the named constants model.json lists. */
function decodeWeights(
  specs: readonly TfWeightSpec[],
  weightData: Uint8Array,
): Map<string, TfConstant> {
  const constants = new Map<string, TfConstant>();
  let offset = 0;
  for (const spec of specs) {
    if (spec.quantization !== undefined) {
      throw new OnnxConversionError('UNSUPPORTED', `weight ${spec.name} is quantized`);
    }
    const count = spec.shape.reduce((product, size) => product * size, 1);
    const byteLength = count * 4;
    if (offset + byteLength > weightData.byteLength) {
      throw new OnnxConversionError(
        'BAD_MODEL',
        `weight ${spec.name} ends at byte ${offset + byteLength}; the shards hold ${weightData.byteLength}`,
      );
    }
    // A view, not a copy: the float bytes go into the model as they are (raw_data is
    // little-endian, as tfjs shards are), and integers are read through a DataView.
    const bytes = weightData.subarray(offset, offset + byteLength);
    offset += byteLength;
    if (spec.dtype === 'float32') {
      constants.set(spec.name, { dataType: OnnxDataType.FLOAT, dims: spec.shape, raw: bytes });
    } else if (spec.dtype === 'int32') {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      constants.set(spec.name, {
        dataType: OnnxDataType.INT64,
        dims: spec.shape,
        ints: BigInt64Array.from({ length: count }, (_, i) => BigInt(view.getInt32(i * 4, true))),
      });
    } else {
      throw new OnnxConversionError('UNSUPPORTED', `weight ${spec.name} has dtype ${spec.dtype}`);
    }
  }
  if (offset !== weightData.byteLength) {
    throw new OnnxConversionError(
      'BAD_MODEL',
      `model.json's weights take ${offset} bytes; the shards hold ${weightData.byteLength}`,
    );
  }
  return constants;
}

function int64Raw(values: readonly bigint[] | BigInt64Array): Uint8Array {
  const array = BigInt64Array.from(values);
  return new Uint8Array(array.buffer);
}

/** Translation state: the ONNX nodes and initializers emitted so far, and the TF graph read. */
class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private readonly initializerNames = new Set<string>();
  private readonly tfNodes = new Map<string, TfNode>();
  private helperCount = 0;

  constructor(
    nodes: readonly TfNode[],
    private readonly constants: ReadonlyMap<string, TfConstant>,
  ) {
    for (const node of nodes) this.tfNodes.set(node.name, node);
  }

  /** The TF node behind an input reference (`name`, `name:1`). */
  producer(ref: string): TfNode {
    const name = parseRef(ref).node;
    const node = this.tfNodes.get(name);
    if (!node) throw new OnnxConversionError('BAD_MODEL', `input ${ref} names no node`);
    return node;
  }

  /**
   * The ONNX value name for a TF input reference. Placeholders keep their names (they are the
   * session's feeds); a Const becomes an initializer the first time something reads it.
   */
  value(ref: string): string {
    const { node: name, index } = parseRef(ref);
    const node = this.producer(ref);
    if (node.op === 'Placeholder') return name;
    const onnxName = `${name}:${index}`;
    if (node.op === 'Const' && !this.initializerNames.has(onnxName)) {
      const constant = this.constant(ref);
      this.addInitializer({
        name: onnxName,
        dataType: constant.dataType,
        dims: constant.dims,
        raw: constant.raw ?? int64Raw(constant.ints ?? new BigInt64Array()),
      });
    }
    return onnxName;
  }

  /** The decoded value of a Const input (shapes, axes, weights). */
  constant(ref: string): TfConstant {
    const node = this.producer(ref);
    const constant = node.op === 'Const' ? this.constants.get(node.name) : undefined;
    if (!constant) {
      throw new OnnxConversionError(
        'UNSUPPORTED',
        `${ref} must be a constant with a weight (it is a ${node.op})`,
      );
    }
    return constant;
  }

  /** An integer constant as plain numbers (attribute values: axes, perms, slice bounds). */
  ints(ref: string): number[] {
    const constant = this.constant(ref);
    if (!constant.ints) throw new OnnxConversionError('UNSUPPORTED', `${ref} is not an integer`);
    return Array.from(constant.ints, Number);
  }

  /** A new int64 initializer, e.g. the axes ONNX takes as an input where TF had an attribute. */
  int64(hint: string, values: readonly (number | bigint)[]): string {
    const name = `${hint}/onnx_const_${this.helperCount++}`;
    this.addInitializer({
      name,
      dataType: OnnxDataType.INT64,
      dims: [values.length],
      raw: int64Raw(values.map((value) => BigInt(value))),
    });
    return name;
  }

  addInitializer(tensor: OnnxTensor): void {
    this.initializers.push(tensor);
    this.initializerNames.add(tensor.name);
  }

  /** Emits one ONNX node; returns its first output's name. */
  emit(
    opType: string,
    hint: string,
    inputs: readonly string[],
    attributes?: Record<string, OnnxAttributeValue>,
    outputs: readonly string[] = [`${hint}/onnx_${this.helperCount++}`],
  ): string {
    this.nodes.push({
      opType,
      name: `${hint}/${opType}_${this.helperCount++}`,
      inputs,
      outputs,
      ...(attributes === undefined ? {} : { attributes }),
    });
    return outputs[0] as string;
  }

  /**
   * The rank of a TF value where the graph fixes it, for the ops that need one (BatchMatMul's
   * adjoint flags swap the last two axes, and ONNX's Transpose needs the full permutation).
   */
  rank(ref: string): number {
    const node = this.producer(ref);
    if (node.op === 'Transpose') return this.ints(node.input?.[1] ?? '').length;
    if (node.op === 'Mul' && node.input?.[0] !== undefined) return this.rank(node.input[0]);
    throw new OnnxConversionError('UNSUPPORTED', `the rank of ${ref} (${node.op}) is not known`);
  }
}

function parseRef(ref: string): { node: string; index: number } {
  const clean = ref.startsWith('^') ? ref.slice(1) : ref;
  const match = /^(.*):(\d+)$/.exec(clean);
  return match ? { node: match[1] as string, index: Number(match[2]) } : { node: clean, index: 0 };
}

function attrInt(node: TfNode, key: string, fallback?: number): number {
  const value = node.attr?.[key]?.i;
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new OnnxConversionError('BAD_MODEL', `${node.name} (${node.op}) has no attribute ${key}`);
  }
  return Number(value);
}

function attrBool(node: TfNode, key: string): boolean {
  return node.attr?.[key]?.b === true;
}

function attrString(node: TfNode, key: string): string | undefined {
  const value = node.attr?.[key]?.s;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : String.fromCharCode(...value);
}

function attrInts(node: TfNode, key: string): number[] {
  return (node.attr?.[key]?.list?.i ?? []).map(Number);
}

function bits(mask: number, count: number): boolean[] {
  return Array.from({ length: count }, (_, i) => (mask & (1 << i)) !== 0);
}

const ELEMENTWISE: Readonly<Record<string, string>> = {
  Add: 'Add',
  AddV2: 'Add',
  BiasAdd: 'Add',
  Sub: 'Sub',
  Mul: 'Mul',
  RealDiv: 'Div',
  Maximum: 'Max',
  Less: 'Less',
  Greater: 'Greater',
  LogicalNot: 'Not',
  Sin: 'Sin',
  Cos: 'Cos',
  Tanh: 'Tanh',
  Relu: 'Relu',
  Shape: 'Shape',
  GatherNd: 'GatherND',
  Identity: 'Identity',
};

const REDUCTIONS: Readonly<Record<string, string>> = {
  Max: 'ReduceMax',
  Mean: 'ReduceMean',
  Sum: 'ReduceSum',
  Prod: 'ReduceProd',
};

/** Translates one TF node; its outputs are named `${node.name}:${index}`. */
function translate(b: GraphBuilder, node: TfNode): void {
  const inputs = (node.input ?? []).filter((ref) => !ref.startsWith('^'));
  const input = (index: number): string => {
    const ref = inputs[index];
    if (ref === undefined) {
      throw new OnnxConversionError('BAD_MODEL', `${node.name} (${node.op}) lacks input ${index}`);
    }
    return ref;
  };
  const out = `${node.name}:0`;
  const hint = node.name;
  const emitOut = (
    opType: string,
    onnxInputs: readonly string[],
    attributes?: Record<string, OnnxAttributeValue>,
  ): void => {
    b.emit(opType, hint, onnxInputs, attributes, [out]);
  };

  const elementwise = ELEMENTWISE[node.op];
  if (elementwise !== undefined) {
    if (node.op === 'BiasAdd' && (attrString(node, 'data_format') ?? 'NHWC') !== 'NHWC') {
      throw new OnnxConversionError('UNSUPPORTED', `${node.name}: BiasAdd not in NHWC`);
    }
    emitOut(
      elementwise,
      inputs.map((ref) => b.value(ref)),
    );
    return;
  }
  const reduction = REDUCTIONS[node.op];
  if (reduction !== undefined) {
    const axes = b.ints(input(1));
    emitOut(reduction, [b.value(input(0)), b.int64(hint, axes)], {
      keepdims: { kind: 'int', value: attrBool(node, 'keep_dims') ? 1 : 0 },
    });
    return;
  }

  switch (node.op) {
    case 'Const':
    case 'Placeholder':
      return; // Initializers are added when read; placeholders are graph inputs.
    case 'Square': {
      const x = b.value(input(0));
      emitOut('Mul', [x, x]);
      return;
    }
    case 'Rsqrt':
      emitOut('Reciprocal', [b.emit('Sqrt', hint, [b.value(input(0))])]);
      return;
    case 'Cast':
      emitOut('Cast', [b.value(input(0))], {
        to: { kind: 'int', value: onnxTypeOfTf(node.attr?.DstT?.type, node.name) },
      });
      return;
    case 'Softmax':
      // TF's Softmax normalizes over the last axis; so does ONNX's from opset 13 on.
      emitOut('Softmax', [b.value(input(0))], { axis: { kind: 'int', value: -1 } });
      return;
    case 'Where': {
      if (inputs.length !== 1) {
        throw new OnnxConversionError(
          'UNSUPPORTED',
          `${node.name}: Where with ${inputs.length} inputs`,
        );
      }
      // TF: [n, rank] coordinates of the true elements, row-major; ONNX NonZero gives [rank, n].
      const nonZero = b.emit('NonZero', hint, [b.value(input(0))]);
      emitOut('Transpose', [nonZero], { perm: { kind: 'ints', value: [1, 0] } });
      return;
    }
    case 'Reshape':
      // allowzero: a 0 in the shape means an empty axis, as in TF, not "copy the input's".
      emitOut('Reshape', [b.value(input(0)), b.value(input(1))], {
        allowzero: { kind: 'int', value: 1 },
      });
      return;
    case 'GatherV2': {
      if (attrInt(node, 'batch_dims', 0) !== 0) {
        throw new OnnxConversionError('UNSUPPORTED', `${node.name}: GatherV2 with batch_dims`);
      }
      const [axis] = b.ints(input(2));
      emitOut('Gather', [b.value(input(0)), b.value(input(1))], {
        axis: { kind: 'int', value: axis ?? 0 },
      });
      return;
    }
    case 'ConcatV2': {
      const count = inputs.length - 1;
      const [axis] = b.ints(input(count));
      emitOut(
        'Concat',
        inputs.slice(0, count).map((ref) => b.value(ref)),
        { axis: { kind: 'int', value: axis ?? 0 } },
      );
      return;
    }
    case 'ExpandDims':
      emitOut('Unsqueeze', [b.value(input(0)), b.int64(hint, b.ints(input(1)))]);
      return;
    case 'Squeeze': {
      const axes = attrInts(node, 'squeeze_dims');
      // No axes: both TF and ONNX drop every axis of size 1.
      emitOut(
        'Squeeze',
        axes.length === 0 ? [b.value(input(0))] : [b.value(input(0)), b.int64(hint, axes)],
      );
      return;
    }
    case 'Transpose':
      emitOut('Transpose', [b.value(input(0))], {
        perm: { kind: 'ints', value: b.ints(input(1)) },
      });
      return;
    case 'Pack': {
      const axis = attrInt(node, 'axis', 0);
      const axes = b.int64(hint, [axis]);
      const expanded = inputs.map((ref) => b.emit('Unsqueeze', hint, [b.value(ref), axes]));
      emitOut('Concat', expanded, { axis: { kind: 'int', value: axis } });
      return;
    }
    case 'Range':
      emitOut('Range', [b.value(input(0)), b.value(input(1)), b.value(input(2))]);
      return;
    case 'StridedSlice':
      translateStridedSlice(b, node, inputs, out);
      return;
    case 'Slice': {
      // TF: begin and size (size -1: to the end); ONNX: starts and ends.
      const begin = b.ints(input(1));
      const size = b.ints(input(2));
      const ends = begin.map((start, i) => {
        const length = size[i] ?? -1;
        return length === -1 ? INT64_MAX : BigInt(start + length);
      });
      emitOut('Slice', [
        b.value(input(0)),
        b.int64(hint, begin),
        b.int64(hint, ends),
        b.int64(
          hint,
          begin.map((_, i) => i),
        ),
      ]);
      return;
    }
    case 'SplitV': {
      const sizes = b.ints(input(1));
      const [axis] = b.ints(input(2));
      if (sizes.some((size) => size < 0)) {
        throw new OnnxConversionError('UNSUPPORTED', `${node.name}: SplitV with an inferred size`);
      }
      b.emit(
        'Split',
        hint,
        [b.value(input(0)), b.int64(hint, sizes)],
        { axis: { kind: 'int', value: axis ?? 0 } },
        sizes.map((_, i) => `${node.name}:${i}`),
      );
      return;
    }
    case 'SparseToDense': {
      if (!attrBool(node, 'validate_indices')) {
        // Unvalidated indices may repeat, and TF then keeps an unspecified one of the values.
        throw new OnnxConversionError(
          'UNSUPPORTED',
          `${node.name}: SparseToDense without validation`,
        );
      }
      // inputs: sparse_indices [n, rank], output_shape [rank], sparse_values [n], default_value [].
      const dense = b.emit('Expand', hint, [b.value(input(3)), b.value(input(1))]);
      emitOut('ScatterND', [dense, b.value(input(0)), b.value(input(2))]);
      return;
    }
    case 'ScatterNd': {
      // inputs: indices, updates, shape. TF adds updates that share an index; here the indices
      // always come from Where (distinct coordinates), and reduction 'add' keeps TF's meaning.
      const zero: OnnxTensor = {
        name: 'zero',
        dataType: onnxTypeOfTf(node.attr?.T?.type, node.name),
        dims: [1],
        raw: new Uint8Array(
          onnxTypeOfTf(node.attr?.T?.type, node.name) === OnnxDataType.FLOAT ? 4 : 8,
        ),
      };
      const zeros = b.emit('ConstantOfShape', hint, [b.value(input(2))], {
        value: { kind: 'tensor', value: zero },
      });
      emitOut('ScatterND', [zeros, b.value(input(0)), b.value(input(1))], {
        reduction: { kind: 'string', value: 'add' },
      });
      return;
    }
    case 'MatMul': {
      let a = b.value(input(0));
      let c = b.value(input(1));
      const swap = { perm: { kind: 'ints', value: [1, 0] } } as const;
      if (attrBool(node, 'transpose_a')) a = b.emit('Transpose', hint, [a], swap);
      if (attrBool(node, 'transpose_b')) c = b.emit('Transpose', hint, [c], swap);
      emitOut('MatMul', [a, c]);
      return;
    }
    case 'BatchMatMul':
    case 'BatchMatMulV2': {
      const adjoint = (ref: string, flag: string): string => {
        const value = b.value(ref);
        if (!attrBool(node, flag)) return value;
        const rank = b.rank(ref);
        const perm = Array.from({ length: rank }, (_, i) => i);
        perm[rank - 2] = rank - 1;
        perm[rank - 1] = rank - 2;
        return b.emit('Transpose', hint, [value], { perm: { kind: 'ints', value: perm } });
      };
      emitOut('MatMul', [adjoint(input(0), 'adj_x'), adjoint(input(1), 'adj_y')]);
      return;
    }
    case 'Conv2D':
      translatePointwiseConv(b, node, input(0), input(1), out);
      return;
    default:
      throw new OnnxConversionError('UNSUPPORTED', `${node.name}: TF op ${node.op}`);
  }
}

/**
 * TF's StridedSlice with constant bounds: masks resolved here into ONNX Slice bounds, then the
 * shrunk axes squeezed away. Ellipsis and new-axis masks do not occur in this graph.
 */
function translateStridedSlice(b: GraphBuilder, node: TfNode, inputs: string[], out: string): void {
  const [data, beginRef, endRef, stridesRef] = inputs;
  if (!data || !beginRef || !endRef || !stridesRef) {
    throw new OnnxConversionError('BAD_MODEL', `${node.name}: StridedSlice needs 4 inputs`);
  }
  if (attrInt(node, 'ellipsis_mask', 0) !== 0 || attrInt(node, 'new_axis_mask', 0) !== 0) {
    throw new OnnxConversionError('UNSUPPORTED', `${node.name}: StridedSlice ellipsis/new axis`);
  }
  const begin = b.ints(beginRef);
  const end = b.ints(endRef);
  const strides = b.ints(stridesRef);
  const count = begin.length;
  const beginMask = bits(attrInt(node, 'begin_mask', 0), count);
  const endMask = bits(attrInt(node, 'end_mask', 0), count);
  const shrink = bits(attrInt(node, 'shrink_axis_mask', 0), count);
  const starts: bigint[] = [];
  const ends: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const step = strides[i] ?? 1;
    const first = begin[i] ?? 0;
    if (shrink[i]) {
      if (step !== 1)
        throw new OnnxConversionError('UNSUPPORTED', `${node.name}: shrink with stride`);
      starts.push(BigInt(first));
      // One element at `first`; -1 is the last element, whose exclusive end is "past the end".
      ends.push(first === -1 ? INT64_MAX : BigInt(first + 1));
      continue;
    }
    starts.push(beginMask[i] ? (step > 0 ? 0n : INT64_MAX) : BigInt(first));
    ends.push(endMask[i] ? (step > 0 ? INT64_MAX : INT64_MIN) : BigInt(end[i] ?? 0));
  }
  const axes = Array.from({ length: count }, (_, i) => i);
  const shrunk = axes.filter((i) => shrink[i]);
  const sliced = b.emit(
    'Slice',
    node.name,
    [
      b.value(data),
      b.int64(node.name, starts),
      b.int64(node.name, ends),
      b.int64(node.name, axes),
      b.int64(node.name, strides),
    ],
    undefined,
    shrunk.length === 0 ? [out] : undefined,
  );
  if (shrunk.length > 0)
    b.emit('Squeeze', node.name, [sliced, b.int64(node.name, shrunk)], undefined, [out]);
}

/**
 * The model's "convolutions" are 1×1, stride 1, NHWC: a matrix product over the channel axis.
 * MatMul with the kernel as a [in, out] matrix computes exactly that (same bytes, fewer dims).
 */
function translatePointwiseConv(
  b: GraphBuilder,
  node: TfNode,
  inputRef: string,
  kernelRef: string,
  out: string,
): void {
  const kernel = b.constant(kernelRef);
  const [height, width, channelsIn, channelsOut] = kernel.dims;
  const unit = (values: number[]): boolean => values.every((value) => value === 1);
  if (
    kernel.dims.length !== 4 ||
    height !== 1 ||
    width !== 1 ||
    channelsIn === undefined ||
    channelsOut === undefined ||
    !kernel.raw ||
    (attrString(node, 'data_format') ?? 'NHWC') !== 'NHWC' ||
    !unit(attrInts(node, 'strides')) ||
    !unit(attrInts(node, 'dilations'))
  ) {
    throw new OnnxConversionError(
      'UNSUPPORTED',
      `${node.name}: Conv2D other than 1×1, stride 1, NHWC (kernel [${kernel.dims.join(', ')}])`,
    );
  }
  const matrix = `${node.name}/kernel_matrix`;
  b.addInitializer({
    name: matrix,
    dataType: OnnxDataType.FLOAT,
    dims: [channelsIn, channelsOut],
    raw: kernel.raw,
  });
  b.emit('MatMul', node.name, [b.value(inputRef), matrix], undefined, [out]);
}

/**
 * The ONNX model for a tfjs graph: `weightData` is the shards in model.json's order,
 * concatenated. Inputs `indices` [n, 2] and `values` [n] (int64, as the TF placeholders);
 * output `embeddings` [batch, 512] float32.
 */
export function convertTfjsGraphToOnnx(json: TfGraphJson, weightData: Uint8Array): OnnxModel {
  const nodes = json.modelTopology?.node;
  if (!Array.isArray(nodes) || !Array.isArray(json.weightsManifest)) {
    throw new OnnxConversionError(
      'BAD_MODEL',
      'model.json has no modelTopology.node or weightsManifest',
    );
  }
  const constants = decodeWeights(
    json.weightsManifest.flatMap((group) => group.weights),
    weightData,
  );
  const builder = new GraphBuilder(nodes, constants);
  // model.json lists nodes in an order tfjs executes; ONNX wants producers before consumers,
  // which a topological sort guarantees whatever the file's order.
  for (const node of topologicalOrder(nodes)) translate(builder, node);

  const consumed = new Set(
    nodes.flatMap((node) => node.input ?? []).map((ref) => parseRef(ref).node),
  );
  const sinks = nodes.filter(
    (node) => !consumed.has(node.name) && node.op !== 'Const' && node.op !== 'Placeholder',
  );
  const [sink] = sinks;
  if (sinks.length !== 1 || !sink) {
    throw new OnnxConversionError(
      'BAD_MODEL',
      `expected one output node, found ${sinks.map((node) => node.name).join(', ') || 'none'}`,
    );
  }
  builder.emit('Identity', 'output', [`${sink.name}:0`], undefined, [USE_LITE_ONNX_OUTPUT]);

  const placeholders = nodes.filter((node) => node.op === 'Placeholder').map((node) => node.name);
  const expected = Object.values(USE_LITE_ONNX_INPUTS);
  if (
    placeholders.length !== expected.length ||
    !expected.every((name) => placeholders.includes(name))
  ) {
    throw new OnnxConversionError(
      'UNSUPPORTED',
      `expected inputs ${expected.join(', ')}; model.json has ${placeholders.join(', ')}`,
    );
  }
  return {
    irVersion: IR_VERSION,
    opsetVersion: USE_LITE_ONNX_OPSET,
    producerName: 'cairn use-lite-onnx-graph',
    graphName: 'use_lite',
    nodes: builder.nodes,
    initializers: builder.initializers,
    inputs: [
      { name: USE_LITE_ONNX_INPUTS.indices, dataType: OnnxDataType.INT64, shape: ['entries', 2] },
      { name: USE_LITE_ONNX_INPUTS.values, dataType: OnnxDataType.INT64, shape: ['entries'] },
    ],
    outputs: [
      { name: USE_LITE_ONNX_OUTPUT, dataType: OnnxDataType.FLOAT, shape: ['batch', 'dims'] },
    ],
  };
}

function topologicalOrder(nodes: readonly TfNode[]): TfNode[] {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: TfNode[] = [];
  const visit = (node: TfNode): void => {
    if (done.has(node.name)) return;
    if (visiting.has(node.name)) {
      throw new OnnxConversionError('BAD_MODEL', `the graph has a cycle through ${node.name}`);
    }
    visiting.add(node.name);
    for (const ref of node.input ?? []) {
      const producer = byName.get(parseRef(ref).node);
      if (!producer)
        throw new OnnxConversionError('BAD_MODEL', `${node.name} reads missing ${ref}`);
      visit(producer);
    }
    visiting.delete(node.name);
    done.add(node.name);
    order.push(node);
  };
  // Iterative callers are unnecessary: the graph is ~30 nodes deep.
  for (const node of nodes) visit(node);
  return order;
}
