/**
 * Real pieces for the built-in model tests: a model folder on disk behind the adapter interface
 * Obsidian's `vault.adapter` offers, the model files from node_modules, and the worker's message
 * handler run in this process (Node has no Web Worker) on tfjs's wasm backend.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { USE_LITE_FILES } from '../../../shared/embeddings/use-lite-files';
import type { ModelFolderAdapter } from '../../../plugin/embeddings/builtin-model-folder';
import { createWorkerHandler } from '../../../plugin/embeddings/builtin-worker-handler';
import type {
  EmbeddingWorker,
  FromWorkerMessage,
} from '../../../plugin/embeddings/builtin-worker-protocol';

const resolvePackage = createRequire(import.meta.url);

export function installedFile(name: string): string {
  const file = USE_LITE_FILES.find((candidate) => candidate.name === name);
  if (!file) throw new Error(`${name} is not a model file`);
  return resolvePackage.resolve(`${file.package}/dist/${name}`);
}

/** Copies every model file from node_modules into `dir`. */
export function copyModel(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const file of USE_LITE_FILES) copyFileSync(installedFile(file.name), `${dir}/${file.name}`);
}

/** `vault.adapter` over the real file system, paths taken as they are. */
export class DiskAdapter implements ModelFolderAdapter {
  readonly written: string[] = [];
  async exists(path: string): Promise<boolean> {
    return existsSync(path);
  }
  async stat(path: string): Promise<{ size: number } | null> {
    return existsSync(path) ? { size: statSync(path).size } : null;
  }
  async readBinary(path: string): Promise<ArrayBuffer> {
    const data = readFileSync(path);
    return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  }
  async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
    this.written.push(path);
    writeFileSync(path, new Uint8Array(data));
  }
  async rename(from: string, to: string): Promise<void> {
    if (existsSync(to)) throw new Error('Destination file already exists!');
    renameSync(from, to);
  }
  async remove(path: string): Promise<void> {
    rmSync(path);
  }
  async mkdir(path: string): Promise<void> {
    mkdirSync(path, { recursive: true });
  }
}

let backend: Promise<void> | undefined;

/** tfjs's wasm backend from the installed binaries (process-wide, set up once). */
function startNodeBackend(): Promise<void> {
  backend ??= (async () => {
    setWasmPaths(`${dirname(installedFile('tfjs-backend-wasm.wasm'))}/`);
    if (!(await tf.setBackend('wasm'))) throw new Error('no wasm backend');
    await tf.ready();
  })();
  return backend;
}

/**
 * The shipped worker's handler, run in this thread; messages are delivered asynchronously as a
 * worker's would be. `failBackend` makes the backend set-up fail, as a broken wasm file would.
 */
export function inProcessWorker(options: { failBackend?: string } = {}): EmbeddingWorker & {
  terminated: boolean;
} {
  let onMessage: ((message: FromWorkerMessage) => void) | undefined;
  const worker = {
    terminated: false,
    send: (message: Parameters<EmbeddingWorker['send']>[0]) => {
      setImmediate(() => {
        if (!worker.terminated) handle(message);
      });
    },
    listen(listener: (message: FromWorkerMessage) => void) {
      onMessage = listener;
    },
    terminate() {
      worker.terminated = true;
    },
  };
  const handle = createWorkerHandler({
    startBackend: async () => {
      if (options.failBackend) throw new Error(options.failBackend);
      await startNodeBackend();
    },
    post: (message) => {
      if (!worker.terminated) setImmediate(() => onMessage?.(message));
    },
  });
  return worker;
}
