import { describe, expect, it } from 'vitest';
import { VectorMatrix } from '../../../shared/search/vector-matrix';

/** Deterministic pseudo-random vectors (mulberry32), some clustered, some with negative parts. */
function randomVectors(count: number, dims: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, () =>
    Float32Array.from({ length: dims }, () => next() * 2 - 1),
  );
}

function bruteForce(vectors: Map<number, Float32Array>, query: Float32Array, k: number) {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return [...vectors]
    .map(([id, v]) => ({
      id,
      similarity: v.reduce((sum, x, j) => sum + x * query[j]!, 0) / (norm(v) * norm(query)),
    }))
    .sort((a, b) => b.similarity - a.similarity || a.id - b.id)
    .slice(0, k);
}

describe('VectorMatrix', () => {
  it('ranks exactly like a brute-force cosine scan when the candidates fit the re-rank budget', () => {
    const vectors = new Map(randomVectors(300, 48, 1).map((v, i) => [i * 3 + 1, v]));
    const matrix = new VectorMatrix(48, 4);
    for (const [id, v] of vectors) matrix.set(id, v);
    expect(matrix.size).toBe(300);
    for (const query of randomVectors(5, 48, 2)) {
      const got = matrix.nearest(query, 10);
      const want = bruteForce(vectors, query, 10);
      expect(got.map((hit) => hit.id)).toEqual(want.map((hit) => hit.id));
      got.forEach((hit, i) => expect(hit.similarity).toBeCloseTo(want[i]!.similarity, 5));
    }
  });

  it('with the Hamming prefilter, finds a stored vector first and keeps most true neighbours', () => {
    const vectors = new Map(randomVectors(3000, 64, 3).map((v, i) => [i, v]));
    const matrix = new VectorMatrix(64);
    for (const [id, v] of vectors) matrix.set(id, v);
    let overlap = 0;
    for (const id of [5, 500, 2999]) {
      const query = vectors.get(id)!;
      // 200 candidates of 3,000: the prefilter decides what is compared exactly.
      const got = matrix.nearest(query, 10, { rerank: 200 });
      expect(got[0]).toMatchObject({ id });
      expect(got[0]!.similarity).toBeCloseTo(1, 5);
      const want = new Set(bruteForce(vectors, query, 10).map((hit) => hit.id));
      overlap += got.filter((hit) => want.has(hit.id)).length;
    }
    // Random vectors are the hard case (no structure); a prefilter that picked at random would
    // keep 200/3000 of them (≈ 2 of 30).
    expect(overlap).toBeGreaterThanOrEqual(15);
  });

  it('searches only the ids asked for, ignoring unknown ones', () => {
    const vectors = new Map(randomVectors(50, 16, 4).map((v, i) => [i, v]));
    const matrix = new VectorMatrix(16);
    for (const [id, v] of vectors) matrix.set(id, v);
    const query = vectors.get(7)!;
    const only = [3, 7, 11, 999];
    const got = matrix.nearest(query, 10, { only });
    expect(got.map((hit) => hit.id).sort((a, b) => a - b)).toEqual([3, 7, 11]);
    expect(got[0]!.id).toBe(7);
    const subset = new Map([3, 7, 11].map((id) => [id, vectors.get(id)!]));
    expect(got.map((hit) => hit.id)).toEqual(bruteForce(subset, query, 10).map((hit) => hit.id));
  });

  it('deletes and replaces in place, moving the last vector into the hole', () => {
    const [a, b, c] = randomVectors(3, 8, 5) as [Float32Array, Float32Array, Float32Array];
    const matrix = new VectorMatrix(8, 1);
    matrix.set(1, a);
    matrix.set(2, b);
    matrix.set(3, c);
    expect(matrix.delete(1)).toBe(true);
    expect(matrix.delete(1)).toBe(false);
    expect(matrix.size).toBe(2);
    expect(matrix.nearest(a, 5).map((hit) => hit.id)).not.toContain(1);
    expect(matrix.nearest(c, 1)[0]).toMatchObject({ id: 3 });
    matrix.set(3, a); // a new vector under the same id
    expect(matrix.size).toBe(2);
    expect(matrix.nearest(a, 1)[0]!.id).toBe(3);
    expect(matrix.nearest(a, 1)[0]!.similarity).toBeCloseTo(1, 5);
  });

  it('scores a zero vector 0 and refuses vectors of another dimension, naming both', () => {
    const matrix = new VectorMatrix(4);
    matrix.set(1, new Float32Array(4));
    expect(matrix.nearest(Float32Array.of(1, 0, 0, 0), 1)).toEqual([{ id: 1, similarity: 0 }]);
    expect(() => matrix.set(2, new Float32Array(3))).toThrow('3 dimensions, expected 4');
    expect(() => matrix.nearest(new Float32Array(5), 1)).toThrow(
      'query of 5 dimensions, expected 4',
    );
    expect(matrix.nearest(Float32Array.of(1, 0, 0, 0), 0)).toEqual([]);
  });

  it('holds a large matrix in blocks: at most one spare, nothing copied, exact across them', () => {
    const dims = 16;
    const vectors = randomVectors(10_000, dims, 11);
    // Loaded with its size known (the count of stored vectors): 3 blocks of 4,096 slots.
    const loaded = new VectorMatrix(dims, 10_000);
    const before = loaded.bytes;
    vectors.forEach((vector, id) => loaded.set(id, vector));
    expect(loaded.bytes).toBe(before);
    const perSlot = dims * 4 + 4 + 8; // floats, one code word, the id
    expect(before).toBeLessThanOrEqual(10_000 * perSlot + 4096 * dims * 4);

    // Grown one by one from empty, then searched exactly (every vector a candidate).
    const grown = new VectorMatrix(dims);
    const kept = new Map<number, Float32Array>();
    vectors.forEach((vector, id) => {
      grown.set(id, vector);
      kept.set(id, vector);
    });
    // Deletes move vectors from the last block into holes of the first ones.
    for (let id = 0; id < 10_000; id += 3) {
      grown.delete(id);
      kept.delete(id);
    }
    for (const query of randomVectors(5, dims, 12)) {
      const got = grown.nearest(query, 10, { rerank: 10_000 });
      const want = bruteForce(kept, query, 10);
      expect(got.map((hit) => hit.id)).toEqual(want.map((hit) => hit.id));
      got.forEach((hit, index) => expect(hit.similarity).toBeCloseTo(want[index]!.similarity, 5));
    }
    // Kept ids on both sides of block edges (4,096 and 8,192), and the last one.
    for (const id of [1, 4094, 4097, 8191, 8194, 9998]) {
      expect(grown.nearest(vectors[id]!, 1, { rerank: 10_000 })[0]?.id).toBe(id);
    }
  });

  it('grows a large matrix by a quarter, not by doubling, and keeps every vector', () => {
    const dims = 8;
    const vectors = randomVectors(40_000, dims, 7);
    const matrix = new VectorMatrix(dims);
    vectors.forEach((vector, id) => matrix.set(id, vector));
    expect(matrix.size).toBe(40_000);
    // Per slot: the floats, the sign code words and the id.
    const perSlot = dims * 4 + Math.ceil(dims / 32) * 4 + 8;
    const slots = matrix.bytes / perSlot;
    expect(slots).toBeGreaterThanOrEqual(40_000);
    // Doubling from 1,024 would hold 65,536 slots for these 40,000.
    expect(slots).toBeLessThanOrEqual(40_000 * 1.25);
    for (const id of [0, 16_384, 39_999]) {
      expect(matrix.nearest(vectors[id]!, 1)[0]?.id).toBe(id);
    }
  });
});
