/**
 * Loads the built-in model in a worker on the runtime the options ask for (use-lite-runtime.ts
 * says what each choice means). Both engines are imported here, so only the worker loads them.
 */
import type { Embedder } from '../../shared/ports';
import { UseLiteEmbedder } from './use-lite';
import { UseLiteOnnxEmbedder } from './use-lite-onnx';
import { nativeIdleMemoryProblem } from './use-lite-runtime';
import type { EmbedRuntime, UseLiteWorkerOptions } from './use-lite-runtime';

export interface LoadedUseLite {
  readonly embedder: Embedder & { dispose(): unknown };
  readonly runtime: EmbedRuntime;
  /** Set when `auto` wanted native and fell back to wasm: why native could not be used. */
  readonly fallbackReason?: string;
}

/** Loads USE-lite on the runtime `options.runtime` asks for (see the file comment). */
export async function loadUseLite(options: UseLiteWorkerOptions = {}): Promise<LoadedUseLite> {
  const choice = options.runtime ?? 'auto';
  const batch = options.batchSize === undefined ? {} : { batchSize: options.batchSize };
  let fallbackReason =
    choice === 'auto' ? nativeIdleMemoryProblem(process.env, runsOnGlibc()) : undefined;
  if (choice === 'native' || (choice === 'auto' && fallbackReason === undefined)) {
    try {
      const embedder = await UseLiteOnnxEmbedder.load({
        ...batch,
        ...(options.runtimeModule === undefined ? {} : { runtimeModule: options.runtimeModule }),
      });
      return { embedder, runtime: 'native' };
    } catch (error) {
      if (choice === 'native') throw error;
      fallbackReason = error instanceof Error ? error.message : String(error);
    }
  }
  const embedder = await UseLiteEmbedder.load({
    ...batch,
    ...(options.fastMatMul === undefined ? {} : { fastMatMul: options.fastMatMul }),
  });
  return {
    embedder,
    runtime: 'wasm',
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  };
}

/** True on Linux with glibc (whose malloc keeps freed memory; see nativeIdleMemoryProblem). */
function runsOnGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } };
  return typeof report?.header?.glibcVersionRuntime === 'string';
}
