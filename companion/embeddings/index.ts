// Public surface of companion/embeddings: what the app and the indexer wire up.
export { createEmbedder, embeddingsConfigFromEnv, DEFAULT_EMBEDDINGS_CONFIG } from './provider';
export type { ClosableEmbedder, CreateEmbedderOptions, EmbeddingsConfig } from './provider';
export { EmbeddingProviderError } from './provider-error';
export type { EmbeddingProviderErrorCode } from './provider-error';
export { USE_LITE_MODEL } from './use-lite-model';
export { WorkerEmbedder, defaultWorkerCount } from './worker-embedder';
export { OllamaEmbedder } from './ollama';
