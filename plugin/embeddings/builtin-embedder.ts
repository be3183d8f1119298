import { USE_LITE_MODEL } from '../../shared/embeddings/use-lite-model';
import type { EmbedderChoice } from './embedder-choice';
import { checkModelFolder, readModelFolder, type ModelFolderAdapter } from './builtin-model-folder';
import { BuiltinWorkerEmbedder } from './builtin-worker-embedder';
import type { EmbeddingWorker } from './builtin-worker-protocol';
import { IdleReleasingEmbedder } from './idle-releasing-embedder';
import type { IdleTimers } from './idle-releasing-embedder';

/** Where the built-in model is and how its worker starts; main.ts builds it from the app. */
export interface BuiltinModelHost {
  readonly adapter: Pick<ModelFolderAdapter, 'exists' | 'stat' | 'readBinary'>;
  /** The model folder, e.g. `.obsidian/plugins/cairn/models/use-lite`. */
  readonly dir: string;
  /** Default: a Web Worker from the source embedded in main.js. Tests run the handler in-process. */
  readonly startWorker?: () => EmbeddingWorker;
  /** The idle timer's source (the window's in Obsidian); without it the worker is kept. */
  readonly timers?: IdleTimers;
  /** Default BUILTIN_IDLE_MS. */
  readonly idleMs?: number;
}

/** The worker stops after this long with nothing to embed, and starts again when needed. */
export const BUILTIN_IDLE_MS = 5 * 60_000;

/**
 * The built-in model when its folder is complete, else why not (keyword search, labelled).
 * The worker, and with it TensorFlow.js, exists only from here on: nothing of it runs at onload.
 *
 * Only the folder check is awaited. Loading the model (reading 28 MB, starting the worker,
 * building the graph: about a second on a desktop, more on a phone) goes on in the background,
 * so the index restores and search answers by keyword meanwhile (`ready` is false); embedding
 * calls wait for it, and fail with the load error if it failed (search then answers by keyword,
 * saying why).
 */
export async function startBuiltinEmbedder(host: BuiltinModelHost): Promise<EmbedderChoice> {
  const check = await checkModelFolder(host.adapter, host.dir);
  if (!check.complete) return { kind: 'none', reason: check.message };
  const embedder = new IdleReleasingEmbedder(
    USE_LITE_MODEL,
    () => loadWorkerEmbedder(host),
    host.idleMs ?? BUILTIN_IDLE_MS,
    host.timers ?? null,
  );
  embedder.warmUp();
  return { kind: 'active', embedder, label: embedder.model.id, close: () => embedder.close() };
}

async function loadWorkerEmbedder(host: BuiltinModelHost): Promise<BuiltinWorkerEmbedder> {
  const payload = await readModelFolder(host.adapter, host.dir);
  const worker = host.startWorker
    ? host.startWorker()
    : (await import('./builtin-worker-source')).startBuiltinWorker();
  try {
    return await BuiltinWorkerEmbedder.start(worker, payload);
  } catch (error) {
    worker.terminate();
    throw error;
  }
}
