import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUSION,
  dedupePerNote,
  fuseRankings,
  fuseScores,
} from '../../../shared/search/index';

const list = (...keys: string[]) => keys.map((key, i) => ({ key, score: 100 - i }));

describe('fuseRankings (RRF)', () => {
  it('ranks keys found by both engines above keys found by one', () => {
    const fused = fuseRankings([list('a', 'b', 'c'), list('c', 'd', 'a')]);
    expect(fused.map((item) => item.key)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('scores by rank only: 1/(k+rank), normalised so first everywhere is 1', () => {
    const fused = fuseRankings([list('a', 'b'), list('a', 'b')], { k: 60 });
    expect(fused[0]).toEqual({ key: 'a', score: 1 });
    expect(fused[1]!.score).toBeCloseTo(61 / 62, 12);
    // Scale of the engine's scores does not matter.
    const scaled = fuseRankings([
      [
        { key: 'a', score: 0.9 },
        { key: 'b', score: 0.1 },
      ],
      list('a', 'b'),
    ]);
    expect(scaled).toEqual(fused);
  });

  it('sorts unsorted input by score and counts a repeated key once, at its best rank', () => {
    const fused = fuseRankings([
      [
        { key: 'low', score: 1 },
        { key: 'high', score: 5 },
        { key: 'high', score: 0.5 },
      ],
    ]);
    expect(fused.map((item) => item.key)).toEqual(['high', 'low']);
    expect(fused[0]!.score).toBe(1);
  });

  it('applies weights, and a weight of 0 ignores a list', () => {
    const keyword = list('k1', 'shared');
    const vector = list('v1', 'shared');
    const order = (weights: number[]) =>
      fuseRankings([keyword, vector], { weights }).map((item) => item.key);
    expect(order([2, 1])).toEqual(['shared', 'k1', 'v1']);
    expect(order([1, 2])).toEqual(['shared', 'v1', 'k1']);
    expect(fuseRankings([keyword, vector], { weights: [0, 1] }).map((item) => item.key)).toEqual([
      'v1',
      'shared',
    ]);
  });

  it('breaks ties deterministically (best rank, then key)', () => {
    const fused = fuseRankings([list('b', 'a'), list('a', 'b')]);
    expect(fused.map((item) => item.key)).toEqual(['a', 'b']);
  });

  it.each([
    [{ weights: [1] }],
    [{ weights: [1, -1] }],
    [{ weights: [1, Number.NaN] }],
    [{ k: -1 }],
  ])('rejects bad options %j', (options) => {
    expect(() => fuseRankings([list('a'), list('b')], options)).toThrow(RangeError);
  });

  it('handles no lists and empty lists', () => {
    expect(fuseRankings([])).toEqual([]);
    expect(fuseRankings([[], []])).toEqual([]);
  });
});

describe('fuseScores (weighted, min-max)', () => {
  it('normalises each list before weighting', () => {
    const bm25 = [
      { key: 'a', score: 30 },
      { key: 'b', score: 10 },
      { key: 'c', score: 20 },
    ];
    const cosine = [
      { key: 'b', score: 0.9 },
      { key: 'a', score: 0.5 },
    ];
    const fused = fuseScores([bm25, cosine]);
    // a: (1 + 0) / 2, b: (0 + 1) / 2, c: (0.5 + 0) / 2
    expect(fused).toEqual([
      { key: 'a', score: 0.5 },
      { key: 'b', score: 0.5 },
      { key: 'c', score: 0.25 },
    ]);
    expect(fuseScores([bm25, cosine], { weights: [1, 3] })[0]).toEqual({ key: 'b', score: 0.75 });
  });

  it('counts a list of equal scores as 1 each and skips non-finite scores', () => {
    expect(
      fuseScores([
        [
          { key: 'a', score: 2 },
          { key: 'b', score: 2 },
          { key: 'x', score: Number.NaN },
        ],
      ]),
    ).toEqual([
      { key: 'a', score: 1 },
      { key: 'b', score: 1 },
    ]);
  });
});

describe('dedupePerNote', () => {
  const results = [
    { chunk: 'a#1', note: 'a', score: 1 },
    { chunk: 'a#2', note: 'a', score: 0.95 },
    { chunk: 'b#1', note: 'b', score: 0.9 },
    { chunk: 'a#3', note: 'a', score: 0.94 },
    { chunk: 'b#2', note: 'b', score: 0.5 },
  ];
  const noteOf = (result: { note: string }) => result.note;

  it('keeps only the best chunk per note by default', () => {
    expect(dedupePerNote(results, { noteOf }).map((r) => r.chunk)).toEqual(['a#1', 'b#1']);
  });

  it('keeps a second chunk only when it is close to its note’s best', () => {
    expect(dedupePerNote(results, { noteOf, maxPerNote: 2 }).map((r) => r.chunk)).toEqual([
      'a#1',
      'a#2',
      'b#1',
    ]);
    expect(
      dedupePerNote(results, { noteOf, maxPerNote: 2, closeRatio: 0 }).map((r) => r.chunk),
    ).toEqual(['a#1', 'a#2', 'b#1', 'b#2']);
  });
});

describe('DEFAULT_FUSION: the one ranking policy of both engines', () => {
  it('is weighted scores, keywords first, and cannot be changed by a caller', () => {
    expect(DEFAULT_FUSION).toEqual({
      method: 'weighted',
      rrfK: 60,
      keywordWeight: 1,
      vectorWeight: 0.3,
    });
    expect(Object.isFrozen(DEFAULT_FUSION)).toBe(true);
  });
});
