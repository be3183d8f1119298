/**
 * A faster BatchMatMul for TensorFlow.js's wasm backend, for the products USE-lite's attention
 * computes (queries × keys, weights × values: 128 matrices of 128 × 64 or 128 × 128 per 32
 * texts).
 *
 * Why: tfjs-wasm hands a matmul to XNNPACK only when it has a single matrix on each side; a
 * batch of matrices (rank 3 and up), and any transposed operand, runs in the backend's plain C
 * loop instead, ~10–80x slower per multiply-add on this machine. In USE-lite those batched
 * products are ~3% of the arithmetic but took ~32% of the time (scripts/bench-embeddings.mjs
 * `--profile`, docs/embeddings-performance.md).
 *
 * What: for a batched product without broadcasting, each matrix pair is copied (and transposed
 * while copying, if the op asks for it) into a one-matrix tensor on the wasm heap, multiplied by
 * the original kernel, which now takes its XNNPACK path, and copied into the output. The copies
 * are ~1% of the multiply's memory traffic. Every other product goes to the original kernel
 * untouched. Results differ from the plain loop only in summation order (~1e-7 relative).
 *
 * The kernel registry is process-wide (per Web Worker in the plugin): install once per
 * process, after `tf.setBackend('wasm')`. Pure tfjs-core: the companion's and the plugin's
 * workers use it alike.
 */
import * as tf from '@tensorflow/tfjs-core';

/** The parts of tfjs-wasm's backend this kernel uses (public methods of `BackendWasm`). */
interface WasmBackendHeap {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(info: tf.TensorInfo): tf.TypedArray;
  disposeData(dataId: tf.DataId): boolean;
}

interface MatMulAttrs {
  transposeA: boolean;
  transposeB: boolean;
}

let restoreOriginal: (() => void) | undefined;

/** Whether {@link installBatchedMatMul} is in effect. */
export function batchedMatMulInstalled(): boolean {
  return restoreOriginal !== undefined;
}

/**
 * Replaces the wasm backend's BatchMatMul kernel (idempotent). Returns a function that puts the
 * original back (tests compare both paths in one process).
 */
export function installBatchedMatMul(): () => void {
  if (restoreOriginal) return restoreOriginal;
  const original = tf.getKernel('BatchMatMul', 'wasm');
  if (!original) {
    throw new Error('installBatchedMatMul: the tfjs wasm backend is not registered');
  }
  const originalConfig: tf.KernelConfig = { ...original };
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({
    kernelName: 'BatchMatMul',
    backendName: 'wasm',
    // The original's setup binds its wasm function; it must still run if the backend starts
    // after this call.
    ...(original.setupFunc ? { setupFunc: original.setupFunc } : {}),
    kernelFunc: (args) => {
      const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      const attrs = args.attrs as unknown as MatMulAttrs;
      const backend = args.backend as unknown as WasmBackendHeap;
      const batched = matrixBatch(a, b);
      if (batched === undefined) return original.kernelFunc(args) as tf.TensorInfo;
      return multiplyMatrixByMatrix(a, b, attrs, backend, batched, (x, y) =>
        original.kernelFunc({
          inputs: { a: x, b: y },
          backend: args.backend,
          attrs: { transposeA: false, transposeB: false },
        }),
      );
    },
  });
  restoreOriginal = () => {
    tf.unregisterKernel('BatchMatMul', 'wasm');
    tf.registerKernel(originalConfig);
    restoreOriginal = undefined;
  };
  return restoreOriginal;
}

/** The batch size when both sides hold the same number (> 1) of float32 matrices, else undefined. */
function matrixBatch(a: tf.TensorInfo, b: tf.TensorInfo): number | undefined {
  if (a.dtype !== 'float32' || b.dtype !== 'float32') return undefined;
  if (a.shape.length < 3 || a.shape.length !== b.shape.length) return undefined;
  const batchA = a.shape.slice(0, -2);
  const batchB = b.shape.slice(0, -2);
  if (batchA.some((size, i) => size !== batchB[i])) return undefined;
  const batch = batchA.reduce((product, size) => product * size, 1);
  return batch > 1 ? batch : undefined;
}

function multiplyMatrixByMatrix(
  a: tf.TensorInfo,
  b: tf.TensorInfo,
  { transposeA, transposeB }: MatMulAttrs,
  backend: WasmBackendHeap,
  batch: number,
  multiplyOne: (a: tf.TensorInfo, b: tf.TensorInfo) => tf.TensorInfo | tf.TensorInfo[],
): tf.TensorInfo {
  const rank = a.shape.length;
  const [aRows, aCols] = [a.shape[rank - 2] as number, a.shape[rank - 1] as number];
  const [bRows, bCols] = [b.shape[rank - 2] as number, b.shape[rank - 1] as number];
  const m = transposeA ? aCols : aRows;
  const k = transposeA ? aRows : aCols;
  const n = transposeB ? bRows : bCols;
  if ((transposeB ? bCols : bRows) !== k) {
    throw new Error(
      `BatchMatMul: inner dimensions differ (${k} vs ${transposeB ? bCols : bRows}) for shapes ` +
        `[${a.shape.join(', ')}] and [${b.shape.join(', ')}]`,
    );
  }
  const out = backend.makeOutput([...a.shape.slice(0, -2), m, n], 'float32');
  const aOne = backend.makeOutput([m, k], 'float32');
  try {
    for (let i = 0; i < batch; i++) {
      // A new right-hand tensor per matrix: tfjs-wasm caches XNNPACK's packed copy of the
      // right-hand side by tensor id until that tensor is disposed, so reusing one would
      // multiply by the first matrix again.
      const bOne = backend.makeOutput([k, n], 'float32');
      try {
        // Heap views are taken afresh each time: a kernel call may grow the wasm memory, which
        // detaches every earlier view.
        copyMatrix(
          backend.typedArrayFromHeap(a),
          i * m * k,
          aRows,
          aCols,
          transposeA,
          aOne,
          backend,
        );
        copyMatrix(
          backend.typedArrayFromHeap(b),
          i * k * n,
          bRows,
          bCols,
          transposeB,
          bOne,
          backend,
        );
        const product = multiplyOne(aOne, bOne) as tf.TensorInfo;
        backend
          .typedArrayFromHeap(out)
          .set(backend.typedArrayFromHeap(product).subarray(0, m * n), i * m * n);
        backend.disposeData(product.dataId);
      } finally {
        backend.disposeData(bOne.dataId);
      }
    }
  } catch (error) {
    backend.disposeData(out.dataId);
    throw error;
  } finally {
    backend.disposeData(aOne.dataId);
  }
  return out;
}

/** Copies matrix `offset…` of `source` (rows × cols, row-major) into `target`, transposed if asked. */
function copyMatrix(
  source: tf.TypedArray,
  offset: number,
  rows: number,
  cols: number,
  transpose: boolean,
  target: tf.TensorInfo,
  backend: WasmBackendHeap,
): void {
  const into = backend.typedArrayFromHeap(target);
  if (!transpose) {
    into.set(source.subarray(offset, offset + rows * cols));
    return;
  }
  for (let r = 0; r < rows; r++) {
    const row = offset + r * cols;
    for (let c = 0; c < cols; c++) into[c * rows + r] = source[row + c] as number;
  }
}
