import type { Embedder } from '../../shared/ports';
import { chunkNote } from '../../shared/search/chunk';
import { noteInputFromMarkdown } from '../../plugin/search/note-input';
import { createSearchEngine } from '../../plugin/search/search-engine';
import type { SearchEngine, SearchEngineOptions } from '../../plugin/search/search-engine';
import { embeddingInput } from '../../plugin/search/device-indexer';
import type { EvalDocument, EvalEngine } from './engine';

export interface PluginEngineOptions {
  name: string;
  /** Absent: keyword only, as the plugin runs with embeddings off. */
  embedder?: () => Promise<Embedder>;
  fusion?: SearchEngineOptions['fusion'];
  weights?: SearchEngineOptions['weights'];
  stemming?: boolean;
  boosts?: SearchEngineOptions['boosts'];
  typoTolerance?: boolean;
  relevance?: SearchEngineOptions['relevance'];
}

/**
 * The plugin's real in-vault search (plugin/search/search-engine.ts): each document parsed and
 * chunked as the plugin's indexer does, chunks embedded with the plugin's embedding input, hits
 * deduplicated per note. Options other than `name` and `embedder` are for tuning
 * (plugin-tune.ts); absent, the plugin's defaults apply.
 */
export class PluginEngine implements EvalEngine {
  readonly name: string;
  private engine: SearchEngine | null = null;
  private readonly idByPath = new Map<string, string>();

  constructor(private readonly options: PluginEngineOptions) {
    this.name = options.name;
  }

  async index(documents: readonly EvalDocument[]): Promise<void> {
    const embedder = this.options.embedder ? await this.options.embedder() : null;
    const engine = createSearchEngine({
      embedder,
      ...(this.options.fusion ? { fusion: this.options.fusion } : {}),
      ...(this.options.weights ? { weights: this.options.weights } : {}),
      ...(this.options.stemming === undefined ? {} : { stemming: this.options.stemming }),
      ...(this.options.boosts ? { boosts: this.options.boosts } : {}),
      ...(this.options.typoTolerance === undefined
        ? {}
        : { typoTolerance: this.options.typoTolerance }),
      ...(this.options.relevance ? { relevance: this.options.relevance } : {}),
    });
    for (const doc of documents) {
      const parsed = noteInputFromMarkdown(doc.path, doc.raw);
      if (!parsed.ok) continue;
      const chunks = chunkNote(parsed.input);
      let vectors = new Map<string, Float32Array>();
      if (embedder && chunks.length > 0) {
        const embedded = await embedder.embed(chunks.map(embeddingInput));
        vectors = new Map(chunks.map((chunk, i) => [chunk.textHash, embedded[i]!]));
      }
      engine.upsertNote(doc.path, chunks, (hash) => vectors.get(hash));
      this.idByPath.set(doc.path, doc.id);
    }
    this.engine = engine;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.engine) throw new Error(`${this.name}: search before index`);
    const hits = await this.engine.search(query, { limit: k });
    return hits.flatMap((hit) => {
      const id = this.idByPath.get(hit.citation.path);
      return id === undefined ? [] : [id];
    });
  }
}
