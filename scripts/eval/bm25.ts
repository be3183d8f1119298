import type { EvalDocument, EvalEngine } from './engine';

/*
 * Plain Okapi BM25 (Robertson et al.), the reference line every engine must beat: one field
 * (title + text), lower-cased alphanumeric tokens, no stemming, no stop words, no prefix or typo
 * tolerance. With k1 = 0.9, b = 0.4 this is the setting the corpus README quotes (Cranfield
 * nDCG@10 0.511), so the eval can check it reproduces the published number.
 */

export interface Bm25Options {
  k1?: number;
  b?: number;
}

export function bm25Tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export class Bm25Engine implements EvalEngine {
  readonly name: string;
  private readonly k1: number;
  private readonly b: number;
  private ids: string[] = [];
  private lengths: number[] = [];
  private averageLength = 0;
  /** term → [document index, term frequency][] */
  private postings = new Map<string, Array<[number, number]>>();

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 0.9;
    this.b = options.b ?? 0.4;
    this.name = `BM25 (k1=${this.k1}, b=${this.b})`;
  }

  async index(documents: readonly EvalDocument[]): Promise<void> {
    this.ids = documents.map((doc) => doc.id);
    this.postings = new Map();
    this.lengths = documents.map((doc, index) => {
      const tokens = bm25Tokens(`${doc.title}\n${doc.text}`);
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = this.postings.get(term);
        if (list === undefined) this.postings.set(term, (list = []));
        list.push([index, tf]);
      }
      return tokens.length;
    });
    this.averageLength =
      this.lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, this.lengths.length);
  }

  async search(query: string, k: number): Promise<string[]> {
    const scores = new Map<number, number>();
    const n = this.ids.length;
    // A term repeated in the query counts once per occurrence, as in Lucene's BooleanQuery.
    for (const term of bm25Tokens(query)) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) {
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[doc]!) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([doc]) => this.ids[doc]!);
  }
}
