import { describe, expect, it } from 'vitest';
import { Bm25fIndex } from '../../../plugin/search/bm25f-index';
import type { Bm25fSnapshot } from '../../../plugin/search/bm25f-index';

/** Drains a compaction the way the indexer does, without UI turns. */
function compact(index: Bm25fIndex): Int32Array {
  const steps = index.compact(2);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

const ids = (index: Bm25fIndex, ...terms: string[]) => terms.map((term) => index.termIds(term));

describe('Bm25fIndex', () => {
  it('scores with real term frequencies (one field, hand-computed BM25)', () => {
    const index = new Bm25fIndex(1);
    index.add([['wing', 'wing', 'flow']]); // doc 0: tf(wing) 2, length 3
    index.add([['flow', 'flow', 'flow', 'drag']]); // doc 1: no wing, length 4
    index.add([['wing', 'drag', 'drag', 'drag', 'drag']]); // doc 2: tf(wing) 1, length 5
    const params = { k1: 1.2, b: 0.75, weights: [1] };
    const scores = new Map(index.score(ids(index, 'wing'), params).map((s) => [s.doc, s.score]));
    const average = 4;
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const bm25 = (tf: number, length: number) => {
      const normalised = tf / (1 - 0.75 + (0.75 * length) / average);
      return (idf * normalised * 2.2) / (1.2 + normalised);
    };
    expect(scores.size).toBe(2);
    expect(scores.get(0)).toBeCloseTo(bm25(2, 3), 12);
    expect(scores.get(2)).toBeCloseTo(bm25(1, 5), 12);
    expect(scores.get(0)!).toBeGreaterThan(scores.get(2)!);
  });

  it('combines fields before saturating (BM25F) and ignores zero-weight fields', () => {
    const index = new Bm25fIndex(2);
    index.add([['wing'], ['wing', 'flow']]);
    index.add([[], ['flow', 'flow']]);
    const params = { k1: 1, b: 0, weights: [2, 1] };
    const [hit] = index.score(ids(index, 'wing'), params);
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const tf = 2 * 1 + 1 * 1;
    expect(hit?.score).toBeCloseTo((idf * tf * 2) / (1 + tf), 12);
    expect(index.score(ids(index, 'wing'), { k1: 1, b: 0, weights: [0, 0] })).toEqual([]);
  });

  it('forgets removed documents in scores and statistics, and compaction keeps the scores', () => {
    const index = new Bm25fIndex(1);
    const params = { k1: 1.2, b: 0.75, weights: [1] };
    const a = index.add([['alpha', 'beta']]);
    const gone = index.add([['alpha', 'alpha', 'gamma', 'gamma', 'gamma']]);
    const c = index.add([['beta', 'alpha', 'delta']]);
    index.remove(gone);
    const fresh = new Bm25fIndex(1);
    fresh.add([['alpha', 'beta']]);
    fresh.add([['beta', 'alpha', 'delta']]);
    const expected = fresh.score(ids(fresh, 'alpha', 'beta'), params);
    const sortByDoc = (list: Array<{ doc: number; score: number }>) =>
      [...list].sort((x, y) => x.doc - y.doc).map((s) => s.score);
    const before = index.score(ids(index, 'alpha', 'beta'), params);
    expect(before.map((s) => s.doc).sort()).toEqual([a, c]);
    expect(sortByDoc(before)).toEqual(sortByDoc(expected));
    const remap = compact(index);
    expect([...remap]).toEqual([0, -1, 1]);
    expect(index.compacted).toBe(true);
    expect(sortByDoc(index.score(ids(index, 'alpha', 'beta'), params))).toEqual(
      sortByDoc(expected),
    );
    expect(index.score(ids(index, 'gamma'), params)).toEqual([]);
  });

  it('saves and loads to the same scores, and refuses snapshots that do not fit together', () => {
    const index = new Bm25fIndex(2);
    for (let n = 0; n < 50; n++) {
      index.add([[`t${n % 7}`], Array.from({ length: 3 + (n % 5) }, (_, w) => `w${(n + w) % 11}`)]);
    }
    index.remove(3);
    compact(index);
    const saved = structuredClone(index.save());
    const loaded = Bm25fIndex.load(saved);
    const params = { k1: 1.2, b: 0.75, weights: [2, 1] };
    const query = ['t3', 'w4', 'w9'];
    expect(loaded.score(ids(loaded, ...query), params)).toEqual(
      index.score(ids(index, ...query), params),
    );
    loaded.add([['t3'], ['w4']]);
    expect(loaded.size).toBe(50);

    const broken: Array<[string, (s: Bm25fSnapshot) => void]> = [
      ['offsets', (s) => (s.offsets[1] = s.offsets[1]!.slice(1))],
      ['doc', (s) => (s.docs[0]![0] = 10_000)],
      ['cut short', (s) => (s.tfs[1] = s.tfs[1]!.slice(1))],
      ['types', (s) => (s.docs[0] = Array.from(s.docs[0]!) as unknown as Uint32Array)],
      ['vocabulary', (s) => (s.terms = `${s.terms} extra`)],
      ['slot', (s) => (s.termTable[s.termTable.findIndex((id) => id === -1)] = 0)],
      ['lengths', (s) => (s.lengths[0] = s.lengths[0]!.slice(1))],
    ];
    for (const [what, breakIt] of broken) {
      const copy = structuredClone(saved);
      breakIt(copy);
      expect(() => Bm25fIndex.load(copy), what).toThrow(/keyword index|vocabulary/);
    }
  });

  it('refuses to change while a compaction is in progress', () => {
    const index = new Bm25fIndex(1);
    for (let n = 0; n < 10; n++) index.add([[`w${n}`]]);
    const steps = index.compact(2);
    steps.next();
    expect(() => index.add([['late']])).toThrow(/compacting/);
    while (!steps.next().done);
    expect(index.add([['late']])).toBe(10);
  });
});
