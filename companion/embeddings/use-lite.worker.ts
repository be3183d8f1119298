/**
 * Worker-thread entry for the built-in model: loads USE-lite once, on the runtime `workerData`
 * asks for (use-lite-loader.ts: native onnxruntime when it loads, else wasm), then answers
 * `embed` messages one at a time (see `worker-protocol.ts`). The build turns this file into
 * dist/companion/use-lite.worker.mjs; `WorkerEmbedder` starts it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadUseLite } from './use-lite-loader';
import type { UseLiteWorkerOptions } from './use-lite-runtime';
import { errorMessage, type EmbedRequestMessage, type WorkerReplyMessage } from './worker-protocol';

const port = parentPort;
if (!port) throw new Error('use-lite.worker must run in a worker thread');

function reply(message: WorkerReplyMessage, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

const options = (workerData ?? {}) as UseLiteWorkerOptions;

try {
  const { embedder, runtime, fallbackReason } = await loadUseLite(options);
  // Requests are handled strictly one after another: the model is single-threaded anyway, and
  // the main thread sends the next batch only after this one's answer.
  let queue = Promise.resolve();
  port.on('message', (message: EmbedRequestMessage) => {
    queue = queue.then(async () => {
      try {
        const vectors = await embedder.embed(message.texts);
        reply(
          { type: 'vectors', id: message.id, vectors },
          vectors.map((vector) => vector.buffer as ArrayBuffer),
        );
      } catch (error) {
        reply({ type: 'error', id: message.id, message: errorMessage(error) });
      }
    });
  });
  reply({
    type: 'ready',
    model: embedder.model,
    runtime,
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  });
} catch (error) {
  reply({ type: 'fatal', message: `could not load USE-lite: ${errorMessage(error)}` });
  process.exitCode = 1;
  port.close();
}
