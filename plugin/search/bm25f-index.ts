import { Vocabulary } from './vocabulary';

/*
 * The keyword index: BM25F over a fixed list of fields, with real term frequencies.
 *
 * Layout (Lucene's segments, reduced to two): a compact base of per-field postings in typed
 * arrays (CSR: offsets by term id into doc ids and term frequencies), plus postings added
 * since the base was built, per field and term in plain arrays, and an `alive` flag per doc so
 * removal is one store. `compact()` folds the additions in and drops removed docs; it runs in
 * steps so the caller can spread it over UI turns, and is what a snapshot is written from.
 * The base arrays and the vocabulary are saved and loaded as they are: a restart re-tokenises
 * nothing.
 */

export interface Bm25fParams {
  k1: number;
  b: number;
  /** Weight per field, in the index's field order. */
  weights: readonly number[];
}

export interface Bm25fSnapshot {
  fieldCount: number;
  /** Documents in the snapshot (all alive: it is written from a compacted index). */
  docCount: number;
  terms: string;
  termTable: Int32Array;
  /** Per field: term id → first posting, length vocabulary size + 1. */
  offsets: Uint32Array[];
  docs: Uint32Array[];
  tfs: Uint16Array[];
  /** Per field: tokens per document. */
  lengths: Uint32Array[];
}

export interface ScoredDoc {
  doc: number;
  score: number;
}

/** Term frequencies are stored in 16 bits; a token repeated more often than this counts as this. */
const MAX_TF = 0xffff;
/** Postings checked per step of `loadInSteps` (~1M: a few ms). */
const LOAD_POSTINGS_PER_STEP = 1 << 20;

export class Bm25fIndex {
  private vocabulary: Vocabulary;
  private baseOffsets: Uint32Array[];
  private baseDocs: Uint32Array[];
  private baseTfs: Uint16Array[];
  /** Per field, by term id: [doc, tf, doc, tf, …] added since the base was built. */
  private added: Array<Array<number[] | undefined>>;
  private lengths: Uint32Array[];
  private alive: Uint8Array;
  private allocated = 0;
  private liveCount = 0;
  private readonly lengthSums: Float64Array;
  private compacting = false;
  /** Scratch per document for one query, grown with the index. */
  private termScratch = new Float64Array(0);
  private scoreScratch = new Float64Array(0);

  constructor(readonly fieldCount: number) {
    this.vocabulary = Vocabulary.empty();
    this.baseOffsets = fields(fieldCount, () => new Uint32Array(1));
    this.baseDocs = fields(fieldCount, () => new Uint32Array(0));
    this.baseTfs = fields(fieldCount, () => new Uint16Array(0));
    this.added = fields(fieldCount, () => []);
    this.lengths = fields(fieldCount, () => new Uint32Array(64));
    this.alive = new Uint8Array(64);
    this.lengthSums = new Float64Array(fieldCount);
  }

  /** An index holding exactly what `save()` returned; throws naming what does not fit. */
  static load(snapshot: Bm25fSnapshot): Bm25fIndex {
    const steps = Bm25fIndex.loadInSteps(snapshot);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `load` as a generator: checking every posting of a 10k-note vault takes tens of ms, so it
   * yields after the vocabulary, every LOAD_POSTINGS_PER_STEP postings and after each field for
   * the caller to give the UI a turn.
   */
  static *loadInSteps(snapshot: Bm25fSnapshot): Generator<void, Bm25fIndex> {
    const { fieldCount, docCount } = snapshot;
    if (!Number.isInteger(fieldCount) || fieldCount < 1 || !Number.isInteger(docCount)) {
      throw new Error('keyword index: field or document count missing');
    }
    const index = new Bm25fIndex(fieldCount);
    index.vocabulary = Vocabulary.load(snapshot.terms, snapshot.termTable);
    const termCount = index.vocabulary.size;
    yield;
    for (const part of ['offsets', 'docs', 'tfs', 'lengths'] as const) {
      if (!Array.isArray(snapshot[part]) || snapshot[part].length !== fieldCount) {
        throw new Error(`keyword index: ${part} is not one array per field`);
      }
    }
    for (let f = 0; f < fieldCount; f++) {
      const offsets = snapshot.offsets[f]!;
      const docs = snapshot.docs[f]!;
      const tfs = snapshot.tfs[f]!;
      const lengths = snapshot.lengths[f]!;
      if (
        !(offsets instanceof Uint32Array) ||
        !(docs instanceof Uint32Array) ||
        !(tfs instanceof Uint16Array) ||
        !(lengths instanceof Uint32Array)
      ) {
        throw new Error(`keyword index: field ${f} arrays have the wrong types`);
      }
      if (offsets.length !== termCount + 1 || offsets[0] !== 0) {
        throw new Error(`keyword index: field ${f} offsets do not match ${termCount} terms`);
      }
      for (let t = 0; t < termCount; t++) {
        if (offsets[t + 1]! < offsets[t]!) throw new Error(`keyword index: field ${f} offsets`);
      }
      if (offsets[termCount] !== docs.length || tfs.length !== docs.length) {
        throw new Error(`keyword index: field ${f} postings are cut short`);
      }
      // The body field holds millions of postings at 10k notes: checked in steps.
      for (let start = 0; start < docs.length; start += LOAD_POSTINGS_PER_STEP) {
        const end = Math.min(docs.length, start + LOAD_POSTINGS_PER_STEP);
        for (let i = start; i < end; i++) {
          if (docs[i]! >= docCount)
            throw new Error(`keyword index: field ${f} names doc ${docs[i]}`);
        }
        if (end < docs.length) yield;
      }
      if (lengths.length !== docCount) {
        throw new Error(`keyword index: field ${f} lengths are for ${lengths.length} docs`);
      }
      yield;
    }
    index.baseOffsets = snapshot.offsets;
    index.baseDocs = snapshot.docs;
    index.baseTfs = snapshot.tfs;
    index.lengths = snapshot.lengths.map((lengths) => grown(lengths, docCount + 64));
    index.alive = new Uint8Array(docCount + 64);
    index.alive.fill(1, 0, docCount);
    index.allocated = docCount;
    index.liveCount = docCount;
    for (let f = 0; f < fieldCount; f++) {
      let sum = 0;
      for (let d = 0; d < docCount; d++) sum += index.lengths[f]![d]!;
      index.lengthSums[f] = sum;
    }
    return index;
  }

  /** Documents searchable now. */
  get size(): number {
    return this.liveCount;
  }

  /** Removed documents whose postings `compact()` would drop. */
  get removedCount(): number {
    return this.allocated - this.liveCount;
  }

  /** True when nothing was added or removed since the last compaction (or load). */
  get compacted(): boolean {
    return this.removedCount === 0 && this.added.every((byTerm) => byTerm.length === 0);
  }

  /** Adds a document given its tokens per field (duplicates kept: they are the frequencies). */
  add(fieldTokens: ReadonlyArray<readonly string[]>): number {
    this.assertNotCompacting();
    if (fieldTokens.length !== this.fieldCount) {
      throw new Error(
        `keyword index: ${fieldTokens.length} fields given, ${this.fieldCount} expected`,
      );
    }
    const doc = this.allocated++;
    this.ensureCapacity(this.allocated);
    this.alive[doc] = 1;
    this.liveCount++;
    for (let f = 0; f < this.fieldCount; f++) {
      const tokens = fieldTokens[f]!;
      this.lengths[f]![doc] = tokens.length;
      this.lengthSums[f] = this.lengthSums[f]! + tokens.length;
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      const byTerm = this.added[f]!;
      for (const [token, count] of counts) {
        const term = this.vocabulary.idOrAdd(token);
        const list = byTerm[term] ?? (byTerm[term] = []);
        list.push(doc, Math.min(count, MAX_TF));
      }
    }
    return doc;
  }

  remove(doc: number): void {
    this.assertNotCompacting();
    if (doc < 0 || doc >= this.allocated || this.alive[doc] !== 1) return;
    this.alive[doc] = 0;
    this.liveCount--;
    for (let f = 0; f < this.fieldCount; f++)
      this.lengthSums[f] = this.lengthSums[f]! - this.lengths[f]![doc]!;
  }

  isAlive(doc: number): boolean {
    return doc >= 0 && doc < this.allocated && this.alive[doc] === 1;
  }

  /**
   * Postings of a term in one field: its document frequency there, counting removed documents
   * until the next compaction (an estimate for choosing terms, not for scoring).
   */
  postingCount(termId: number, field: number): number {
    const offsets = this.baseOffsets[field];
    if (!offsets) return 0;
    const base = termId + 1 < offsets.length ? offsets[termId + 1]! - offsets[termId]! : 0;
    return base + (this.added[field]![termId]?.length ?? 0) / 2;
  }

  /** Vocabulary ids of `term`, or of the terms starting with it / one edit from it. */
  termIds(term: string, expand: 'exact' | 'prefix' | 'typo' = 'exact'): number[] {
    if (expand === 'prefix') return this.vocabulary.idsWithPrefix(term);
    if (expand === 'typo') return this.vocabulary.idsWithinOneEdit(term);
    const id = this.vocabulary.id(term);
    return id === -1 ? [] : [id];
  }

  /**
   * BM25F: per query term, the field frequencies of a document are length-normalised per field,
   * weighted and summed, then saturated once (k1) and multiplied by the term's IDF. Each entry
   * of `query` is one query term as a group of vocabulary ids (a term and its expansions count
   * as one term). Returns every matching document with its score, unsorted.
   */
  score(query: ReadonlyArray<readonly number[]>, params: Bm25fParams): ScoredDoc[] {
    const n = this.liveCount;
    if (n === 0) return [];
    if (this.scoreScratch.length < this.allocated) {
      this.scoreScratch = new Float64Array(this.alive.length);
      this.termScratch = new Float64Array(this.alive.length);
    }
    const scores = this.scoreScratch;
    const termTf = this.termScratch;
    const { k1, b, weights } = params;
    const averages = Array.from(this.lengthSums, (sum) => Math.max(sum / n, 1e-9));
    const touched: number[] = [];
    for (const group of query) {
      const termDocs: number[] = [];
      for (let f = 0; f < this.fieldCount; f++) {
        const weight = weights[f] ?? 0;
        if (weight <= 0) continue;
        const lengths = this.lengths[f]!;
        const average = averages[f]!;
        const visit = (doc: number, tf: number) => {
          if (this.alive[doc] !== 1) return;
          const norm = 1 - b + (b * lengths[doc]!) / average;
          if (termTf[doc] === 0) termDocs.push(doc);
          termTf[doc] = termTf[doc]! + (weight * tf) / norm;
        };
        for (const term of group) {
          const offsets = this.baseOffsets[f]!;
          if (term + 1 < offsets.length) {
            const docs = this.baseDocs[f]!;
            const tfs = this.baseTfs[f]!;
            for (let i = offsets[term]!, end = offsets[term + 1]!; i < end; i++) {
              visit(docs[i]!, tfs[i]!);
            }
          }
          const list = this.added[f]![term];
          if (list) for (let i = 0; i < list.length; i += 2) visit(list[i]!, list[i + 1]!);
        }
      }
      const df = termDocs.length;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const doc of termDocs) {
        const tf = termTf[doc]!;
        termTf[doc] = 0;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = scores[doc]! + (idf * tf * (k1 + 1)) / (k1 + tf);
      }
    }
    const result = touched.map((doc) => ({ doc, score: scores[doc]! }));
    for (const doc of touched) scores[doc] = 0;
    return result;
  }

  /**
   * Folds additions into the base and drops removed documents, renumbering the survivors in
   * their order. Runs as a generator: each `yield` is a point where the caller may give the UI
   * a turn; the index stays searchable (on its old arrays) until the last step and must not be
   * changed meanwhile. Returns old doc id → new doc id (-1 for removed documents).
   */
  *compact(stepPostings = 50_000): Generator<void, Int32Array> {
    this.assertNotCompacting();
    this.compacting = true;
    try {
      const remap = new Int32Array(this.allocated).fill(-1);
      // Postings visited since the last yield: steps are bounded by work, not by terms (a
      // common term alone can have a posting per document).
      let work = 0;
      let next = 0;
      for (let d = 0; d < this.allocated; d++) if (this.alive[d] === 1) remap[d] = next++;
      const docCount = next;
      const termCount = this.vocabulary.size;
      const offsets: Uint32Array[] = [];
      const docs: Uint32Array[] = [];
      const tfs: Uint16Array[] = [];
      for (let f = 0; f < this.fieldCount; f++) {
        const baseOffsets = this.baseOffsets[f]!;
        const baseDocs = this.baseDocs[f]!;
        const baseTfs = this.baseTfs[f]!;
        const byTerm = this.added[f]!;
        const fieldOffsets = new Uint32Array(termCount + 1);
        for (let t = 0; t < termCount; t++) {
          let count = 0;
          if (t + 1 < baseOffsets.length) {
            for (let i = baseOffsets[t]!; i < baseOffsets[t + 1]!; i++)
              if (remap[baseDocs[i]!]! >= 0) count++;
          }
          const list = byTerm[t];
          if (list) for (let i = 0; i < list.length; i += 2) if (remap[list[i]!]! >= 0) count++;
          fieldOffsets[t + 1] = fieldOffsets[t]! + count;
          work += 1 + count;
          if (work >= stepPostings) {
            work = 0;
            yield;
          }
        }
        const total = fieldOffsets[termCount]!;
        const fieldDocs = new Uint32Array(total);
        const fieldTfs = new Uint16Array(total);
        for (let t = 0; t < termCount; t++) {
          let at = fieldOffsets[t]!;
          if (t + 1 < baseOffsets.length) {
            for (let i = baseOffsets[t]!; i < baseOffsets[t + 1]!; i++) {
              const doc = remap[baseDocs[i]!]!;
              if (doc < 0) continue;
              fieldDocs[at] = doc;
              fieldTfs[at++] = baseTfs[i]!;
            }
          }
          const list = byTerm[t];
          if (list) {
            for (let i = 0; i < list.length; i += 2) {
              const doc = remap[list[i]!]!;
              if (doc < 0) continue;
              fieldDocs[at] = doc;
              fieldTfs[at++] = list[i + 1]!;
            }
          }
          work += 1 + at - fieldOffsets[t]!;
          if (work >= stepPostings) {
            work = 0;
            yield;
          }
        }
        offsets.push(fieldOffsets);
        docs.push(fieldDocs);
        tfs.push(fieldTfs);
      }
      yield;
      const lengths = this.lengths.map((old) => {
        const fresh = new Uint32Array(docCount + 64);
        for (let d = 0; d < this.allocated; d++) if (remap[d]! >= 0) fresh[remap[d]!] = old[d]!;
        return fresh;
      });
      this.baseOffsets = offsets;
      this.baseDocs = docs;
      this.baseTfs = tfs;
      this.added = fields(this.fieldCount, () => []);
      this.lengths = lengths;
      this.alive = new Uint8Array(docCount + 64);
      this.alive.fill(1, 0, docCount);
      this.allocated = docCount;
      this.liveCount = docCount;
      return remap;
    } finally {
      this.compacting = false;
    }
  }

  /** The compacted index's arrays (shared, not copied: the base is never written in place). */
  save(): Bm25fSnapshot {
    if (!this.compacted) throw new Error('keyword index: compact before saving');
    const { joined, table } = this.vocabulary.save();
    return {
      fieldCount: this.fieldCount,
      docCount: this.allocated,
      terms: joined,
      termTable: table,
      offsets: this.baseOffsets,
      docs: this.baseDocs,
      tfs: this.baseTfs,
      lengths: this.lengths.map((lengths) => lengths.slice(0, this.allocated)),
    };
  }

  private ensureCapacity(docs: number): void {
    if (docs <= this.alive.length) return;
    const capacity = Math.max(docs, this.alive.length * 2);
    this.alive = grown(this.alive, capacity);
    this.lengths = this.lengths.map((lengths) => grown(lengths, capacity));
  }

  private assertNotCompacting(): void {
    if (this.compacting) throw new Error('keyword index: changed while compacting');
  }
}

function fields<T>(count: number, make: () => T): T[] {
  return Array.from({ length: count }, make);
}

function grown<T extends Uint8Array | Uint32Array>(array: T, capacity: number): T {
  if (array.length >= capacity) return array;
  const bigger = new (array.constructor as new (length: number) => T)(capacity);
  bigger.set(array);
  return bigger;
}
