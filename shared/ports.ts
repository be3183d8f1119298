/**
 * The seams between Cairn's pure core and the outside world. Plugin and
 * companion each provide their own implementations; tests provide fakes.
 */

/** Where time comes from. Shared code never reads the system clock itself, so tests can move time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Identifies the model that produced a vector; vectors of different models are never mixed. */
export interface EmbeddingModel {
  /** Stable id, e.g. `use-lite@energetic-ai-0.2.0` or `ollama:nomic-embed-text`. */
  readonly id: string;
  readonly dims: number;
}

/** Turns texts into vectors. Implementations batch internally; callers pass as many texts as they have. */
export interface Embedder {
  readonly model: EmbeddingModel;
  /**
   * False while the model is still loading (embed() would wait for it). A caller that cannot
   * wait, such as a search as you type, may go without vectors meanwhile. Absent = ready.
   */
  readonly ready?: boolean;
  /** One vector per input text, in order, each of length `model.dims`. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
