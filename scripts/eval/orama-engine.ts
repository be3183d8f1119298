import type { Embedder } from '../../shared/ports';
import { chunkNote } from '../../shared/search';
import { noteInputFromMarkdown } from '../../plugin/search/note-input';
import { createSearchEngine } from '../../plugin/search/search-engine';
import type { SearchEngine } from '../../plugin/search/search-engine';
import { embeddingInput } from '../../plugin/search/vault-indexer';
import type { EvalDocument, EvalEngine } from './engine';

/**
 * The plugin's in-vault engine (plugin/search: Orama over chunks, optionally fused with vectors)
 * fed exactly as the plugin's indexer feeds it: note input from the raw Markdown, shared
 * chunking, the plugin's embedding input text.
 */
export class PluginOramaEngine implements EvalEngine {
  readonly name: string;
  private engine: SearchEngine | null = null;
  private idByPath = new Map<string, string>();

  constructor(private readonly embedder?: () => Promise<Embedder>) {
    this.name = embedder ? 'plugin Orama hybrid (USE-lite)' : 'plugin Orama keyword-only';
  }

  async index(documents: readonly EvalDocument[]): Promise<void> {
    const embedder = this.embedder ? await this.embedder() : null;
    const engine = createSearchEngine({ embedder });
    this.idByPath = new Map();
    for (const doc of documents) {
      const result = noteInputFromMarkdown(doc.path, doc.raw);
      if (!result.ok) throw new Error(`${doc.path}: ${result.problem.message}`);
      const chunks = chunkNote(result.input);
      let vectors: Map<string, Float32Array> | undefined;
      if (embedder) {
        const embedded = await embedder.embed(chunks.map(embeddingInput));
        vectors = new Map(chunks.map((chunk, i) => [chunk.textHash, embedded[i]!]));
      }
      const lookup = vectors;
      engine.upsertNote(doc.path, chunks, lookup ? (hash) => lookup.get(hash) : undefined);
      this.idByPath.set(doc.path, doc.id);
    }
    this.engine = engine;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (this.engine === null) throw new Error(`${this.name}: search before index`);
    const ids: string[] = [];
    for (const hit of await this.engine.search(query, { limit: k * 3 })) {
      const id = this.idByPath.get(hit.citation.path);
      if (id !== undefined && !ids.includes(id)) ids.push(id);
      if (ids.length >= k) break;
    }
    return ids;
  }
}
