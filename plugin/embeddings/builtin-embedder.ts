import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { USE_LITE_MODEL } from '../../shared/embeddings/use-lite-model';
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
  let stopped = false;
  const loading = loadWorkerEmbedder(host).then((embedder) => {
    // Unloaded while the model was loading: stop the worker as soon as it exists.
    if (stopped) embedder.close();
    return embedder;
  });
  // Reported to whoever embeds next; not an unhandled rejection in the meantime.
  loading.catch(() => undefined);
  const embedder = new LoadingEmbedder(USE_LITE_MODEL, loading);
  return {
    kind: 'active',
    embedder,
    label: embedder.model.id,
    close: () => {
      stopped = true;
      void loading.then(
        (loaded) => loaded.close(),
        () => undefined,
      );
    },
  };
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

/** An Embedder whose model is known before it has loaded; calls wait for the load. */
class LoadingEmbedder implements Embedder {
  private loaded = false;

  constructor(
    readonly model: EmbeddingModel,
    private readonly loading: Promise<Embedder>,
  ) {
    // A failed load counts as ready too: calls then fail at once with the reason.
    const settle = () => {
      this.loaded = true;
    };
    loading.then(settle, settle);
  }

  get ready(): boolean {
    return this.loaded;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return (await this.loading).embed(texts);
  }
}
