/**
 * Worker entry for the built-in model, in a worker thread or a child process
 * (embedding-worker-host.ts): loads USE-lite once, on the runtime its `workerData` asks for
 * (use-lite-loader.ts: native onnxruntime when it loads, else wasm), then answers `embed`
 * messages one at a time (see `worker-protocol.ts`). The build turns this file into
 * dist/companion/use-lite.worker.mjs; `WorkerEmbedder` starts it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WORKER_DATA_ENV } from './embedding-worker-host';
import { loadUseLite } from './use-lite-loader';
import type { UseLiteWorkerOptions } from './use-lite-runtime';
import { errorMessage, type EmbedRequestMessage, type WorkerReplyMessage } from './worker-protocol';

/** The two ends this worker can talk through: a thread's port, or a child's IPC channel. */
interface Channel {
  readonly options: UseLiteWorkerOptions;
  reply(message: WorkerReplyMessage, transfer?: ArrayBuffer[]): void;
  onRequest(listener: (message: EmbedRequestMessage) => void): void;
  /** After a fatal error: let the process end once the reply is out. */
  close(): void;
}

function threadChannel(port: NonNullable<typeof parentPort>): Channel {
  return {
    options: (workerData ?? {}) as UseLiteWorkerOptions,
    reply: (message, transfer = []) => port.postMessage(message, transfer),
    onRequest: (listener) => port.on('message', listener),
    close: () => port.close(),
  };
}

function processChannel(): Channel {
  const send = process.send?.bind(process);
  if (!send) throw new Error('use-lite.worker must run in a worker thread or a forked process');
  // The companion went away (even by kill -9): its IPC channel closes, and this worker ends too.
  process.on('disconnect', () => process.exit());
  const raw = process.env[WORKER_DATA_ENV];
  let lastReply = Promise.resolve();
  return {
    options: (raw === undefined ? {} : (JSON.parse(raw) ?? {})) as UseLiteWorkerOptions,
    reply: (message) => {
      lastReply = new Promise((resolve) => send(message, undefined, {}, () => resolve()));
    },
    onRequest: (listener) =>
      process.on('message', (message) => listener(message as EmbedRequestMessage)),
    close: () => void lastReply.then(() => process.disconnect()),
  };
}

const channel = parentPort ? threadChannel(parentPort) : processChannel();

try {
  const { embedder, runtime, fallbackReason } = await loadUseLite(channel.options);
  // Requests are handled strictly one after another: the model is single-threaded anyway, and
  // the main thread sends the next batch only after this one's answer.
  let queue = Promise.resolve();
  channel.onRequest((message) => {
    queue = queue.then(async () => {
      try {
        const vectors = await embedder.embed(message.texts);
        channel.reply(
          { type: 'vectors', id: message.id, vectors },
          vectors.map((vector) => vector.buffer as ArrayBuffer),
        );
      } catch (error) {
        channel.reply({ type: 'error', id: message.id, message: errorMessage(error) });
      }
    });
  });
  channel.reply({
    type: 'ready',
    model: embedder.model,
    runtime,
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  });
} catch (error) {
  channel.reply({ type: 'fatal', message: `could not load USE-lite: ${errorMessage(error)}` });
  process.exitCode = 1;
  channel.close();
}
