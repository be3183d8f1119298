/**
 * The batched matmul kernel against tfjs-wasm's own, on the real wasm backend: same products
 * (to float rounding) for every transpose combination, original kernel for what it does not
 * handle, nothing leaked.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import {
  batchedMatMulInstalled,
  installBatchedMatMul,
} from '../../../shared/embeddings/use-lite-batch-matmul';

beforeAll(async () => {
  // The companion's loader sets up the process-wide wasm backend; the model itself is not used.
  (await UseLiteEmbedder.load({ fastMatMul: false })).dispose();
}, 120_000);

afterEach(() => {
  if (batchedMatMulInstalled()) installBatchedMatMul()();
});

/** Deterministic values in [-1, 1). */
function filled(shape: number[], seed: number): tf.Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    values[i] = state / 1_073_741_824 - 1;
  }
  return tf.tensor(values, shape);
}

function product(a: tf.Tensor, b: tf.Tensor, transposeA: boolean, transposeB: boolean) {
  return tf.tidy(() => tf.matMul(a, b, transposeA, transposeB).dataSync().slice());
}

describe('installBatchedMatMul', () => {
  it.each([
    { transposeA: false, transposeB: false },
    { transposeA: false, transposeB: true },
    { transposeA: true, transposeB: false },
    { transposeA: true, transposeB: true },
  ])('multiplies batches of matrices as tfjs does (%o)', ({ transposeA, transposeB }) => {
    const a = filled(transposeA ? [2, 3, 24, 40] : [2, 3, 40, 24], 7);
    const b = filled(transposeB ? [2, 3, 16, 24] : [2, 3, 24, 16], 11);
    const expected = product(a, b, transposeA, transposeB);
    const before = tf.memory().numTensors;
    const bytesBefore = tf.memory().numBytes;

    const restore = installBatchedMatMul();
    const shape = tf.tidy(() => tf.matMul(a, b, transposeA, transposeB).shape);
    const actual = product(a, b, transposeA, transposeB);
    restore();

    expect(shape).toEqual([2, 3, 40, 16]);
    expect(actual).toHaveLength(expected.length);
    let worst = 0;
    expected.forEach((value, i) => {
      worst = Math.max(worst, Math.abs(value - (actual[i] as number)));
    });
    // Sums of 24 products of values below 1: only the summation order differs.
    expect(worst).toBeLessThan(1e-5);
    expect(tf.memory().numTensors).toBe(before);
    expect(tf.memory().numBytes).toBe(bytesBefore);
    tf.dispose([a, b]);
  });

  it('leaves single-matrix and broadcast products to the original kernel', () => {
    const a = filled([40, 24], 3);
    const b = filled([24, 16], 5);
    const batchA = filled([3, 40, 24], 9);
    const expected = [product(a, b, false, false), product(batchA, b, false, false)];
    installBatchedMatMul();
    expect([product(a, b, false, false), product(batchA, b, false, false)]).toEqual(expected);
    tf.dispose([a, b, batchA]);
  });

  it('installs once and restores the original kernel', () => {
    const original = tf.getKernel('BatchMatMul', 'wasm')?.kernelFunc;
    const restore = installBatchedMatMul();
    expect(installBatchedMatMul()).toBe(restore);
    expect(tf.getKernel('BatchMatMul', 'wasm')?.kernelFunc).not.toBe(original);
    restore();
    expect(batchedMatMulInstalled()).toBe(false);
    expect(tf.getKernel('BatchMatMul', 'wasm')?.kernelFunc).toBe(original);
  });
});
