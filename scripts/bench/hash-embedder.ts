// No Node imports: the browser bench (plugin-browser-page.ts) bundles this for Chromium too.
import type { Embedder, EmbeddingModel } from '../../shared/ports';

/**
 * A deterministic bag-of-words embedder (512 dims like USE-lite) for benches that measure the
 * index's own work at a scale USE-lite cannot embed in a bench run (10k notes ≈ 30 min here).
 * It counts the texts it embeds, which is what the restart bench checks.
 */
export class HashEmbedder implements Embedder {
  texts = 0;
  constructor(readonly model: EmbeddingModel = { id: 'bench-hash@1', dims: 512 }) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    return texts.map((text) => hashVector(text, this.model.dims));
  }
}

export function hashVector(text: string, dims: number): Float32Array {
  const vector = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    vector[(h >>> 0) % dims]! += 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) vector[i]! /= norm;
  return vector;
}
