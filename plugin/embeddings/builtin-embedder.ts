import type { EmbedderChoice } from './embedder-choice';
import { checkModelFolder, readModelFolder, type ModelFolderAdapter } from './builtin-model-folder';
import { BuiltinWorkerEmbedder } from './builtin-worker-embedder';
import type { EmbeddingWorker } from './builtin-worker-protocol';

/** Where the built-in model is and how its worker starts; main.ts builds it from the app. */
export interface BuiltinModelHost {
  readonly adapter: Pick<ModelFolderAdapter, 'exists' | 'stat' | 'readBinary'>;
  /** The model folder, e.g. `.obsidian/plugins/cairn/models/use-lite`. */
  readonly dir: string;
  /** Default: a Web Worker from the source embedded in main.js. Tests run the handler in-process. */
  readonly startWorker?: () => EmbeddingWorker;
}

/**
 * The built-in model when its folder is complete, else why not (keyword search, labelled).
 * The worker, and with it TensorFlow.js, exists only from here on: nothing of it runs at onload.
 */
export async function startBuiltinEmbedder(host: BuiltinModelHost): Promise<EmbedderChoice> {
  const check = await checkModelFolder(host.adapter, host.dir);
  if (!check.complete) return { kind: 'none', reason: check.message };
  const payload = await readModelFolder(host.adapter, host.dir);
  const worker = host.startWorker
    ? host.startWorker()
    : (await import('./builtin-worker-source')).startBuiltinWorker();
  let embedder: BuiltinWorkerEmbedder;
  try {
    embedder = await BuiltinWorkerEmbedder.start(worker, payload);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  return {
    kind: 'active',
    embedder,
    label: embedder.model.id,
    close: () => embedder.close(),
  };
}
