import { UseLiteCore } from '../../shared/embeddings/use-lite-core';
import {
  errorMessage,
  type FromWorkerMessage,
  type InitMessage,
  type ToWorkerMessage,
} from './builtin-worker-protocol';

/*
 * What the built-in model worker does with each message, apart from how it reaches the wasm
 * binary (the Web Worker uses blob URLs of the bytes embedded in its script; tests in Node use
 * a folder): so the same handler runs in
 * the shipped worker and, in-process, in tests.
 */

export interface WorkerHandlerDeps {
  /** Sets up TensorFlow.js's wasm backend. */
  startBackend(): Promise<void>;
  post(message: FromWorkerMessage, transfer: Transferable[]): void;
}

export function createWorkerHandler(deps: WorkerHandlerDeps): (message: ToWorkerMessage) => void {
  let core: Promise<UseLiteCore> | undefined;
  // One request at a time: the model is single-threaded and the plugin waits for each answer.
  let queue: Promise<void> = Promise.resolve();

  const init = async (message: InitMessage): Promise<UseLiteCore> => {
    await deps.startBackend();
    return UseLiteCore.fromBytes({
      modelJson: message.modelJson,
      vocab: message.vocab,
      shards: new Map(message.shards),
    });
  };

  return (message) => {
    if (message.type === 'init') {
      if (core)
        return deps.post({ type: 'fatal', message: 'the worker was initialised twice' }, []);
      core = init(message);
      core.then(
        (loaded) => deps.post({ type: 'ready', model: loaded.model }, []),
        (error: unknown) =>
          deps.post(
            { type: 'fatal', message: `could not load USE-lite: ${errorMessage(error)}` },
            [],
          ),
      );
      return;
    }
    queue = queue.then(async () => {
      try {
        if (!core) throw new Error('embed before init');
        const vectors = await (await core).embed(message.texts);
        deps.post(
          { type: 'vectors', id: message.id, vectors },
          vectors.map((vector) => vector.buffer as ArrayBuffer),
        );
      } catch (error) {
        deps.post({ type: 'error', id: message.id, message: errorMessage(error) }, []);
      }
    });
  };
}
