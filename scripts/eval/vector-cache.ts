import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { textHash } from '../../shared/search';

/*
 * Embedding Cranfield with USE-lite takes minutes on two cores; the eval and the bench run it
 * again and again. This embedder answers from a cache file per model (one line per text:
 * `<hash of the text> <base64 float32 vector>`) and embeds only what is missing, appending it.
 * The key is the text's hash under the model id, so a different text or model never hits.
 */
export class CachingEmbedder implements Embedder {
  readonly model: EmbeddingModel;
  private readonly file: string;
  private readonly vectors = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: Embedder,
    folder: string,
  ) {
    this.model = inner.model;
    mkdirSync(folder, { recursive: true });
    this.file = join(
      folder,
      `${this.model.id.replace(/[^\w.@-]+/g, '_')}-${this.model.dims}.vectors`,
    );
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        const [hash, data] = line.split(' ');
        if (!hash || !data) continue;
        const bytes = Buffer.from(data, 'base64');
        if (bytes.length !== this.model.dims * 4) continue; // a torn last line
        const vector = new Float32Array(this.model.dims);
        for (let i = 0; i < this.model.dims; i++) vector[i] = bytes.readFloatLE(i * 4);
        this.vectors.set(hash, vector);
      }
    }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const keys = texts.map((text) => textHash(text) + textHash(text, 1));
    const missing = [...new Set(keys.filter((key) => !this.vectors.has(key)))];
    this.hits += texts.length - missing.length;
    if (missing.length > 0) {
      const byKey = new Map(keys.map((key, i) => [key, texts[i]!]));
      const fresh = await this.inner.embed(missing.map((key) => byKey.get(key)!));
      this.misses += missing.length;
      const lines: string[] = [];
      fresh.forEach((vector, i) => {
        const key = missing[i]!;
        this.vectors.set(key, vector);
        lines.push(
          `${key} ${Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')}`,
        );
      });
      appendFileSync(this.file, `${lines.join('\n')}\n`);
    }
    return keys.map((key) => this.vectors.get(key)!);
  }
}
