import { describe, expect, it } from 'vitest';
import { mean, ndcgAt, recallAt, reciprocalRankAt } from '../../../scripts/eval/metrics';

const judgments = new Map([
  ['a', 3],
  ['b', 2],
  ['c', 1],
]);

describe('ndcgAt', () => {
  it('is 1 for the ideal order', () => {
    expect(ndcgAt(['a', 'b', 'c'], judgments, 10)).toBeCloseTo(1, 12);
  });

  it('matches a hand computation with graded gains and an unjudged document', () => {
    // ranks: x (0), c (1), a (3) → DCG = 1/log2(3) + 3/log2(4) = 0.630930 + 1.5 = 2.130930
    // ideal: 3, 2, 1 → 3 + 2/log2(3) + 1/2 = 3 + 1.261860 + 0.5 = 4.761860
    expect(ndcgAt(['x', 'c', 'a'], judgments, 10)).toBeCloseTo(2.13093 / 4.76186, 5);
  });

  it('cuts both the run and the ideal at k', () => {
    // k = 1: run gives c (1), ideal gives a (3)
    expect(ndcgAt(['c', 'a', 'b'], judgments, 1)).toBeCloseTo(1 / 3, 12);
  });

  it('counts a repeated id once, at its first rank', () => {
    expect(ndcgAt(['a', 'a', 'a'], judgments, 3)).toBeCloseTo(3 / 4.76186, 5);
  });

  it('is 0 when nothing is relevant or nothing is returned', () => {
    expect(ndcgAt(['a'], new Map(), 10)).toBe(0);
    expect(ndcgAt([], judgments, 10)).toBe(0);
  });

  it('rejects k that is not a positive integer', () => {
    expect(() => ndcgAt(['a'], judgments, 0)).toThrow(/k must be a positive integer/);
    expect(() => ndcgAt(['a'], judgments, 1.5)).toThrow(/k must be a positive integer/);
  });
});

describe('recallAt', () => {
  it('is the share of relevant documents in the top k', () => {
    expect(recallAt(['a', 'x', 'c', 'b'], judgments, 3)).toBeCloseTo(2 / 3, 12);
    expect(recallAt(['a', 'x', 'c', 'b'], judgments, 4)).toBe(1);
  });

  it('ignores documents judged with gain 0 and duplicates', () => {
    const withZero = new Map([
      ['a', 1],
      ['z', 0],
    ]);
    expect(recallAt(['z', 'a', 'a'], withZero, 10)).toBe(1);
    // Duplicates collapse before the cut: the top 2 are a and b.
    expect(recallAt(['a', 'a', 'b'], judgments, 2)).toBeCloseTo(2 / 3, 12);
  });
});

describe('reciprocalRankAt', () => {
  it('is 1 / rank of the first relevant document', () => {
    expect(reciprocalRankAt(['x', 'y', 'b'], judgments, 10)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAt(['a'], judgments, 10)).toBe(1);
  });

  it('is 0 when the first relevant document lies beyond k', () => {
    expect(reciprocalRankAt(['x', 'y', 'b'], judgments, 2)).toBe(0);
  });

  it('does not let duplicates push the rank down', () => {
    expect(reciprocalRankAt(['x', 'x', 'a'], judgments, 2)).toBe(0.5);
  });
});

describe('mean', () => {
  it('averages, and is 0 for no values', () => {
    expect(mean([1, 0, 0.5])).toBeCloseTo(0.5, 12);
    expect(mean([])).toBe(0);
  });
});
