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
});
