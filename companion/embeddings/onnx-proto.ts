/**
 * A protobuf writer for the part of ONNX's `ModelProto` that a converted graph needs: nodes,
 * attributes, initializers, typed inputs and outputs, opset imports. Hand-written because the
 * companion has no protobuf library and needs only to write, never to read; field numbers are
 * those of onnx/onnx.proto3 (each message below names its fields). A wrong number would not go
 * unnoticed: onnxruntime parses every model this writes, and the tests run it.
 */

/** ONNX `TensorProto.DataType` values used here. */
export const OnnxDataType = {
  FLOAT: 1,
  INT32: 6,
  INT64: 7,
  BOOL: 9,
} as const;
export type OnnxDataType = (typeof OnnxDataType)[keyof typeof OnnxDataType];

/** A tensor constant: dims plus its little-endian bytes (`raw_data`). */
export interface OnnxTensor {
  readonly name: string;
  readonly dataType: OnnxDataType;
  readonly dims: readonly number[];
  readonly raw: Uint8Array;
}

export type OnnxAttributeValue =
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'ints'; readonly value: readonly number[] }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'tensor'; readonly value: OnnxTensor };

export interface OnnxNode {
  readonly opType: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes?: Readonly<Record<string, OnnxAttributeValue>>;
}

/** A graph input or output; a dimension is a size, or a name for a size known only at run time. */
export interface OnnxValueInfo {
  readonly name: string;
  readonly dataType: OnnxDataType;
  readonly shape: readonly (number | string)[];
}

export interface OnnxModel {
  readonly irVersion: number;
  readonly opsetVersion: number;
  readonly producerName: string;
  readonly graphName: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/** `AttributeProto.AttributeType`. */
const AttributeType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, INTS: 7 } as const;

/**
 * Protobuf wire primitives over a list of byte chunks. A nested message is written into its own
 * writer and then appended by reference (its length is known by then), and large byte fields
 * (the initializers, ~28 MB in all) are kept by reference too: the weights are copied once, when
 * `finish()` joins the chunks, however deep they sit.
 */
class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private scratch = new Uint8Array(256);
  private used = 0;
  /** Bytes written so far, chunks and scratch together. */
  length = 0;

  private flushScratch(): void {
    if (this.used === 0) return;
    this.chunks.push(this.scratch.subarray(0, this.used));
    this.scratch = new Uint8Array(256);
    this.used = 0;
  }

  private byte(value: number): void {
    if (this.used === this.scratch.length) this.flushScratch();
    this.scratch[this.used++] = value;
    this.length++;
  }

  /** Base-128 varint; a negative value is written as its 64-bit two's complement (10 bytes). */
  varint(value: number | bigint): void {
    if (typeof value === 'number' && value >= 0 && value < 2 ** 31) {
      let v = value;
      while (v >= 0x80) {
        this.byte((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      this.byte(v);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.byte(Number(v));
  }

  private tag(field: number, wireType: 0 | 2 | 5): void {
    this.varint((field << 3) | wireType);
  }

  private append(bytes: Uint8Array): void {
    if (bytes.length <= 64) {
      for (const value of bytes) this.byte(value);
      return;
    }
    this.flushScratch();
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  int(field: number, value: number): void {
    this.tag(field, 0);
    this.varint(value);
  }

  float(field: number, value: number): void {
    this.tag(field, 5);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.append(bytes);
  }

  bytesField(field: number, value: Uint8Array): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.append(value);
  }

  string(field: number, value: string): void {
    this.bytesField(field, new TextEncoder().encode(value));
  }

  message(field: number, write: (writer: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    write(inner);
    inner.flushScratch();
    this.tag(field, 2);
    this.varint(inner.length);
    this.flushScratch();
    // A loop, not push(...): a graph's writer can hold more chunks than a call takes arguments.
    for (const chunk of inner.chunks) this.chunks.push(chunk);
    this.length += inner.length;
  }

  /** Repeated int64 in packed form (proto3's default for scalars): one length-delimited run. */
  packedInts(field: number, values: readonly (number | bigint)[]): void {
    this.message(field, (inner) => {
      for (const value of values) inner.varint(value);
    });
  }

  finish(): Uint8Array {
    this.flushScratch();
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

/** TensorProto: dims=1, data_type=2, name=8, raw_data=9. */
function writeTensor(w: ProtoWriter, tensor: OnnxTensor): void {
  if (tensor.dims.length > 0) w.packedInts(1, tensor.dims);
  w.int(2, tensor.dataType);
  w.string(8, tensor.name);
  w.bytesField(9, tensor.raw);
}

/** AttributeProto: name=1, f=2, i=3, s=4, t=5, ints=8, type=20. */
function writeAttribute(w: ProtoWriter, name: string, attribute: OnnxAttributeValue): void {
  w.string(1, name);
  switch (attribute.kind) {
    case 'float':
      w.float(2, attribute.value);
      w.int(20, AttributeType.FLOAT);
      break;
    case 'int':
      w.int(3, attribute.value);
      w.int(20, AttributeType.INT);
      break;
    case 'string':
      w.string(4, attribute.value);
      w.int(20, AttributeType.STRING);
      break;
    case 'tensor':
      w.message(5, (t) => writeTensor(t, attribute.value));
      w.int(20, AttributeType.TENSOR);
      break;
    case 'ints':
      w.packedInts(8, attribute.value);
      w.int(20, AttributeType.INTS);
      break;
  }
}

/** NodeProto: input=1, output=2, name=3, op_type=4, attribute=5. */
function writeNode(w: ProtoWriter, node: OnnxNode): void {
  for (const input of node.inputs) w.string(1, input);
  for (const output of node.outputs) w.string(2, output);
  w.string(3, node.name);
  w.string(4, node.opType);
  for (const [name, attribute] of Object.entries(node.attributes ?? {})) {
    w.message(5, (a) => writeAttribute(a, name, attribute));
  }
}

/**
 * ValueInfoProto: name=1, type=2 → TypeProto.tensor_type=1 → elem_type=1, shape=2 →
 * TensorShapeProto.dim=1 → dim_value=1 | dim_param=2.
 */
function writeValueInfo(w: ProtoWriter, info: OnnxValueInfo): void {
  w.string(1, info.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, info.dataType);
      tensor.message(2, (shape) => {
        for (const dim of info.shape) {
          shape.message(1, (d) => (typeof dim === 'number' ? d.int(1, dim) : d.string(2, dim)));
        }
      });
    }),
  );
}

/**
 * ModelProto (ir_version=1, producer_name=2, graph=7, opset_import=8) around GraphProto
 * (node=1, name=2, initializer=5, input=11, output=12).
 */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  const w = new ProtoWriter();
  w.int(1, model.irVersion);
  w.string(2, model.producerName);
  w.message(7, (graph) => {
    for (const node of model.nodes) graph.message(1, (n) => writeNode(n, node));
    graph.string(2, model.graphName);
    for (const tensor of model.initializers) graph.message(5, (t) => writeTensor(t, tensor));
    for (const input of model.inputs) graph.message(11, (v) => writeValueInfo(v, input));
    for (const output of model.outputs) graph.message(12, (v) => writeValueInfo(v, output));
  });
  // OperatorSetIdProto: domain=1 (empty: the default ONNX domain), version=2.
  w.message(8, (opset) => opset.int(2, model.opsetVersion));
  return w.finish();
}
