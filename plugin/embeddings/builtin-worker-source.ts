import source from 'inline-worker:./builtin-use-lite.worker.ts';
import type { EmbeddingWorker, FromWorkerMessage } from './builtin-worker-protocol';

/*
 * Starts the built-in model's Web Worker from its source, embedded in main.js as a string (a
 * community plugin ships one main.js; there is no worker file to point at). This module is only
 * reached through a dynamic import once the built-in model is selected and installed.
 */

export function startBuiltinWorker(): EmbeddingWorker {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url, { name: 'cairn-use-lite' });
  let revoked = false;
  // The script is fetched asynchronously: the URL is released once the worker has answered.
  const revoke = () => {
    if (revoked) return;
    revoked = true;
    URL.revokeObjectURL(url);
  };
  return {
    send: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      worker.addEventListener('message', (event: MessageEvent<FromWorkerMessage>) => {
        revoke();
        onMessage(event.data);
      });
      worker.addEventListener('error', (event: ErrorEvent) => {
        revoke();
        onFailure(event.message || 'the worker script failed to load');
      });
    },
    terminate() {
      revoke();
      worker.terminate();
    },
  };
}
