/**
 * Chooses the companion's embedding provider (DESIGN §3).
 *
 * Environment variables (read by `embeddingsConfigFromEnv`):
 *
 *   CAIRN_EMBEDDINGS          `builtin` (default): USE-lite, 512 dims, shipped in node_modules,
 *                             run in a worker thread; no download, no other server.
 *                             `ollama`: a local Ollama server's embedding model.
 *                             `none`: no embedding model; search and answers run on keywords
 *                             only, on purpose (status says `semantic.state: "off"`).
 *   CAIRN_OLLAMA_URL          Ollama's base URL; default http://127.0.0.1:11434.
 *   CAIRN_OLLAMA_EMBED_MODEL  Ollama model name; default nomic-embed-text (`ollama pull` it first).
 *
 * Every vector the index stores records `embedder.model` (id + dims): switching provider or
 * model changes the id, which is the cue to re-embed rather than mix vectors.
 */
import type { Embedder } from '../../shared/ports';
import { OLLAMA_DEFAULT_EMBED_MODEL, OLLAMA_DEFAULT_URL, OllamaEmbedder } from './ollama';
import { WorkerEmbedder } from './worker-embedder';

export type EmbeddingsProviderName = 'builtin' | 'ollama' | 'none';

export interface EmbeddingsConfig {
  provider: EmbeddingsProviderName;
  ollamaUrl: string;
  ollamaModel: string;
}

/** An embedder the owner must close on shutdown (the worker thread; a no-op for Ollama). */
export interface ClosableEmbedder extends Embedder {
  close(): Promise<void>;
}

export const DEFAULT_EMBEDDINGS_CONFIG: Readonly<EmbeddingsConfig> = Object.freeze({
  provider: 'builtin',
  ollamaUrl: OLLAMA_DEFAULT_URL,
  ollamaModel: OLLAMA_DEFAULT_EMBED_MODEL,
});

/** Reads the variables above; an invalid value is an error naming the variable. */
export function embeddingsConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): EmbeddingsConfig {
  const provider = (env.CAIRN_EMBEDDINGS ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.provider;
  if (provider !== 'builtin' && provider !== 'ollama' && provider !== 'none') {
    throw new Error(`CAIRN_EMBEDDINGS must be "builtin", "ollama" or "none", got "${provider}"`);
  }
  const ollamaUrl = (env.CAIRN_OLLAMA_URL ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.ollamaUrl;
  if (!URL.canParse(ollamaUrl) || !/^https?:$/.test(new URL(ollamaUrl).protocol)) {
    throw new Error(`CAIRN_OLLAMA_URL must be an http(s) URL, got "${ollamaUrl}"`);
  }
  const ollamaModel =
    (env.CAIRN_OLLAMA_EMBED_MODEL ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.ollamaModel;
  return { provider, ollamaUrl, ollamaModel };
}

export interface CreateEmbedderOptions {
  /** The built USE-lite worker; default: next to the running bundle (dist/companion/). */
  workerFile?: URL | string;
}

/**
 * Starts the configured provider. Fails (rather than silently falling back) when Ollama is chosen
 * but unreachable or lacks the model: the error says what to do, and the caller decides whether
 * to run keyword-only.
 */
export async function createEmbedder(
  config: EmbeddingsConfig = DEFAULT_EMBEDDINGS_CONFIG,
  options: CreateEmbedderOptions = {},
): Promise<ClosableEmbedder> {
  if (config.provider === 'none') {
    throw new Error('CAIRN_EMBEDDINGS is "none": no embedding model is started');
  }
  if (config.provider === 'ollama') {
    const ollama = await OllamaEmbedder.connect({
      baseUrl: config.ollamaUrl,
      modelName: config.ollamaModel,
    });
    return { model: ollama.model, embed: (texts) => ollama.embed(texts), close: async () => {} };
  }
  return WorkerEmbedder.start(
    options.workerFile === undefined ? {} : { workerFile: options.workerFile },
  );
}
