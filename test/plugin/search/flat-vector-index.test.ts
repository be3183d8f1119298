import { describe, expect, it } from 'vitest';
import { FlatVectorIndex } from '../../../plugin/search/flat-vector-index';

describe('FlatVectorIndex', () => {
  it('ranks by cosine, honours limit, floor and the filter', () => {
    const index = new FlatVectorIndex(3);
    expect(index.set('x', new Float32Array([1, 0, 0]))).toBe(true);
    expect(index.set('xy', new Float32Array([2, 2, 0]))).toBe(true);
    expect(index.set('y', new Float32Array([0, 5, 0]))).toBe(true);
    expect(index.set('-x', new Float32Array([-1, 0, 0]))).toBe(true);
    const query = new Float32Array([3, 0.1, 0]);
    expect(index.search(query, 10, 0.1, () => true).map((hit) => hit.key)).toEqual(['x', 'xy']);
    expect(index.search(query, 1, -1, () => true).map((hit) => hit.key)).toEqual(['x']);
    expect(index.search(query, 10, -1, (key) => key !== 'x').map((hit) => hit.key)).toEqual([
      'xy',
      'y',
      '-x',
    ]);
    expect(index.search(query, 10, 0, () => true)[0]?.score).toBeCloseTo(0.99944, 4);
  });

  it('refuses vectors of the wrong size, zero, NaN or infinite ones; queries likewise', () => {
    const index = new FlatVectorIndex(2);
    expect(index.set('short', new Float32Array([1]))).toBe(false);
    expect(index.set('zero', new Float32Array([0, 0]))).toBe(false);
    expect(index.set('nan', new Float32Array([NaN, 1]))).toBe(false);
    expect(index.set('inf', new Float32Array([Infinity, 1]))).toBe(false);
    expect(index.size).toBe(0);
    index.set('a', new Float32Array([1, 1]));
    expect(index.search(new Float32Array([0, 0]), 5, -1, () => true)).toEqual([]);
    expect(index.search(new Float32Array([1, 1, 1]), 5, -1, () => true)).toEqual([]);
    index.delete('a');
    expect(index.has('a')).toBe(false);
  });

  it('prefilters by sign code beyond the re-rank budget and still finds the exact top hits', () => {
    const dims = 48;
    const random = seeded(7);
    const centres = Array.from({ length: 40 }, () => randomVector(dims, random));
    const prefiltered = new FlatVectorIndex(dims, { rerank: 300 });
    const exact = new FlatVectorIndex(dims, { rerank: Infinity });
    for (let i = 0; i < 4000; i++) {
      const vector = jitter(centres[i % centres.length]!, 0.4, random);
      prefiltered.set(`k${i}`, vector);
      exact.set(`k${i}`, vector);
    }
    let found = 0;
    let wanted = 0;
    for (let q = 0; q < 20; q++) {
      const query = jitter(centres[q]!, 0.4, random);
      const all = new Map(exact.search(query, 4000, -1).map((hit) => [hit.key, hit.score]));
      const truth = exact.search(query, 10, -1).map((hit) => hit.key);
      const got = prefiltered.search(query, 10, -1);
      // Scores are exact cosines, not code estimates.
      for (const hit of got) expect(hit.score).toBeCloseTo(all.get(hit.key)!, 6);
      found += got.filter((hit) => truth.includes(hit.key)).length;
      wanted += truth.length;
    }
    expect(found / wanted).toBeGreaterThan(0.9);
    // The prefilter really dropped vectors: a far vector is missing from a long list.
    const query = centres[0]!;
    expect(prefiltered.search(query, 4000, -1).length).toBe(300);
    expect(exact.search(query, 4000, -1).length).toBe(4000);
  });

  it("compares a narrow filter's vectors exactly, however far their codes are", () => {
    const dims = 32;
    const random = seeded(11);
    const index = new FlatVectorIndex(dims, { rerank: 50 });
    const exact = new FlatVectorIndex(dims, { rerank: Infinity });
    for (let i = 0; i < 2000; i++) {
      const vector = randomVector(dims, random);
      index.set(`k${i}`, vector);
      exact.set(`k${i}`, vector);
    }
    const narrow = (key: string) => Number(key.slice(1)) % 97 === 0;
    for (let q = 0; q < 5; q++) {
      const query = randomVector(dims, random);
      expect(index.search(query, 10, -1, narrow)).toEqual(exact.search(query, 10, -1, narrow));
    }
  });

  it('loads in steps, recomputing the codes of a saved index; reused slots get new codes', () => {
    const dims = 16;
    const random = seeded(3);
    const index = new FlatVectorIndex(dims, { rerank: 20 });
    for (let i = 0; i < 9000; i++) index.set(`k${i}`, randomVector(dims, random));
    for (let i = 0; i < 9000; i += 3) index.delete(`k${i}`);
    const target = randomVector(dims, random);
    index.set('target', target);
    expect(index.search(target, 1, -1)[0]?.key).toBe('target');
    // As an older snapshot has it: vectors without their codes.
    const { codes: _codes, coder: _coder, ...saved } = index.save();
    const steps = FlatVectorIndex.loadInSteps(saved, { rerank: 20 });
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(pauses).toBeGreaterThan(0);
    const loaded = step.value;
    expect(loaded.size).toBe(6001);
    expect(loaded.search(target, 1, -1)[0]).toEqual({ key: 'target', score: expect.closeTo(1, 5) });
    const query = randomVector(dims, random);
    expect(loaded.search(query, 5, -1)).toEqual(index.search(query, 5, -1));
  });

  it('builds the key table of a large load in steps even when the codes are reused', () => {
    const dims = 4;
    const random = seeded(5);
    const index = new FlatVectorIndex(dims, { rerank: 20 });
    for (let i = 0; i < 25_000; i++) index.set(`k${i}`, randomVector(dims, random));
    const steps = FlatVectorIndex.loadInSteps(index.save(), { rerank: 20 });
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    // 25k keys at 5k per step: four pauses, and no code is recomputed.
    expect(pauses).toBe(4);
    expect(step.value.size).toBe(25_000);
    const query = randomVector(dims, random);
    expect(step.value.search(query, 5, -1)).toEqual(index.search(query, 5, -1));
  });

  it('takes saved codes as they are, and recomputes codes a different coder wrote', () => {
    const dims = 16;
    const random = seeded(4);
    const index = new FlatVectorIndex(dims, { rerank: 20 });
    for (let i = 0; i < 5000; i++) index.set(`k${i}`, randomVector(dims, random));
    const saved = index.save();
    expect(saved.codes).toHaveLength(5000 * 1);
    const pausesOf = (snapshot: typeof saved) => {
      const steps = FlatVectorIndex.loadInSteps(snapshot, { rerank: 20 });
      let pauses = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) pauses++;
      return { pauses, loaded: step.value };
    };
    const reused = pausesOf(saved);
    expect(reused.pauses).toBe(0);
    const stale = pausesOf({ ...saved, codes: new Int32Array(saved.codes!.length), coder: 'old' });
    expect(stale.pauses).toBeGreaterThan(0);
    const query = randomVector(dims, random);
    const expected = index.search(query, 5, -1);
    expect(reused.loaded.search(query, 5, -1)).toEqual(expected);
    expect(stale.loaded.search(query, 5, -1)).toEqual(expected);
    // A new vector after the load gets a code of its own beside the loaded ones.
    const target = randomVector(dims, random);
    reused.loaded.set('target', target);
    expect(reused.loaded.search(target, 1, -1)[0]?.key).toBe('target');
  });
});

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomVector(dims: number, random: () => number): Float32Array {
  return Float32Array.from({ length: dims }, () => random() * 2 - 1);
}

function jitter(centre: Float32Array, amount: number, random: () => number): Float32Array {
  return centre.map((value) => value + (random() * 2 - 1) * amount);
}
