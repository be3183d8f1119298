/**
 * How USE-lite inputs are grouped and outputs finished, whatever runs the graph: the TensorFlow.js
 * core (plugin and companion) and the companion's native onnxruntime path share these, so their
 * vectors are computed from the same batches and scaled the same way.
 */

/**
 * Row indices grouped into graph calls of at most `batchSize`, shortest token lists first.
 *
 * The graph pads every row to the longest one in its batch: grouping texts of similar length
 * keeps a single long text from making 31 short ones pay for its length. Ties keep input order,
 * so the grouping is deterministic.
 */
export function lengthSortedBatches(lengths: readonly number[], batchSize: number): number[][] {
  const order = lengths
    .map((_, index) => index)
    .sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0) || a - b);
  const batches: number[][] = [];
  for (let start = 0; start < order.length; start += batchSize) {
    batches.push(order.slice(start, start + batchSize));
  }
  return batches;
}

/** A copy scaled to unit length, in its own buffer (so each vector can be transferred alone). */
export function unitLength(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const out = new Float32Array(vector.length);
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
  return out;
}

/**
 * One vector per text, in order: each text checked and tokenised, the token lists run through
 * `runGraph` in length-sorted batches of at most `batchSize` (one `runGraph` answer per row).
 */
export async function embedInLengthSortedBatches(
  texts: readonly string[],
  tokenIds: (text: string) => number[],
  batchSize: number,
  runGraph: (batch: number[][]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  texts.forEach((text, index) => {
    if (typeof text !== 'string') {
      throw new TypeError(`embed: input[${index}] must be a string, got ${typeof text}`);
    }
  });
  const ids = texts.map(tokenIds);
  const vectors = new Array<Float32Array>(texts.length);
  for (const rows of lengthSortedBatches(
    ids.map((row) => row.length),
    batchSize,
  )) {
    const batch = await runGraph(rows.map((row) => ids[row] ?? []));
    rows.forEach((row, i) => {
      vectors[row] = batch[i] as Float32Array;
    });
  }
  return vectors;
}

/** A batch as the graph takes it: sparse [row, position] pairs with the token id at each. */
export interface SparseTokenBatch {
  /** Tokens in the batch (pairs in `positions`, ids in `values`). */
  readonly total: number;
  readonly positions: Int32Array;
  readonly values: Int32Array;
}

export function sparseTokenBatch(batch: readonly (readonly number[])[]): SparseTokenBatch {
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
  return { total, positions, values };
}
