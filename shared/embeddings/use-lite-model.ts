import type { EmbeddingModel } from '../ports';

/**
 * The identity of the built-in model's vectors, on its own so that code which only needs the
 * name (the main thread of `WorkerEmbedder`, routes, the plugin) does not load TensorFlow.js.
 */
export const USE_LITE_MODEL: EmbeddingModel = Object.freeze({
  id: 'use-lite-512@energetic-ai-0.2.0',
  dims: 512,
});
