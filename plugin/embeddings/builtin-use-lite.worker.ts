/**
 * Entry of the built-in model's Web Worker. Bundled on its own (scripts/inline-worker-plugin.mjs)
 * and embedded in main.js as a string, so TensorFlow.js is never evaluated on Obsidian's UI
 * thread and nothing is fetched: the plugin posts the model's weights, and the wasm binaries
 * are embedded here at build time (esbuild's `binary` loader), so the code that runs is all in
 * the reviewed main.js and none of it is downloaded.
 */
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import plainWasm from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm';
import simdWasm from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm';
import { createWorkerHandler } from './builtin-worker-handler';
import type { FromWorkerMessage, ToWorkerMessage } from './builtin-worker-protocol';

/** The dedicated worker's global scope, narrowed to what is used (tsconfig has no WebWorker lib). */
interface WorkerScope {
  postMessage(message: FromWorkerMessage, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ToWorkerMessage>) => void): void;
}

/**
 * tfjs has no "here are the wasm bytes" option, but it takes a URL per binary: blob URLs of the
 * embedded bytes. Threads are turned off (they need cross-origin isolation and a second script),
 * so only the plain and the SIMD binaries are ever loaded.
 */
async function startWasmBackend(): Promise<void> {
  const url = (bytes: Uint8Array<ArrayBuffer>) =>
    URL.createObjectURL(new Blob([bytes], { type: 'application/wasm' }));
  const simd = url(simdWasm);
  setWasmPaths({
    'tfjs-backend-wasm.wasm': url(plainWasm),
    'tfjs-backend-wasm-simd.wasm': simd,
    'tfjs-backend-wasm-threaded-simd.wasm': simd,
  });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm')))
    throw new Error('TensorFlow.js could not start its wasm backend');
  await tf.ready();
}

const scope = self as unknown as WorkerScope;
const handle = createWorkerHandler({
  startBackend: startWasmBackend,
  post: (message, transfer) => scope.postMessage(message, transfer),
});
scope.addEventListener('message', (event) => handle(event.data));
