import type { Embedder } from '../../../shared/ports';
import { tokenize } from '../../../shared/search/tokenize';

/**
 * A deterministic embedder for tests (Orama's own tests fake embeddings the same way): each
 * word is hashed into one of `dims` buckets, so texts sharing words point the same way.
 * Counts every call so tests can assert that nothing was re-embedded.
 */
export class FakeEmbedder implements Embedder {
  readonly model: { id: string; dims: number };
  /** Texts embedded so far, in order, across all calls. */
  readonly embedded: string[] = [];
  calls = 0;
  /** When set, the next call rejects with this error. */
  failNext: Error | undefined;

  constructor(id = 'fake-bow', dims = 64) {
    this.model = { id, dims };
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = undefined;
      throw error;
    }
    this.embedded.push(...texts);
    return texts.map((text) => this.vectorOf(text));
  }

  vectorOf(text: string): Float32Array {
    const vector = new Float32Array(this.model.dims);
    for (const token of tokenize(text)) vector[bucket(token, this.model.dims)]! += 1;
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
    return vector;
  }
}

function bucket(token: string, dims: number): number {
  let hash = 2166136261;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 16777619);
  return (hash >>> 0) % dims;
}
