import { WorkerEmbedder } from '../../companion/embeddings/worker-embedder';
import { editPart, indexPart, restartPart, searchPart } from './parts';
import type { BenchContext } from './parts';
import { rssMb } from './stats';

export interface BenchOptions {
  corpora: string;
  workerFile: string;
  notes: number;
  queries: number;
}

export const PARTS: Record<string, (context: BenchContext) => Promise<string>> = {
  indexing: indexPart,
  restart: restartPart,
  edit: editPart,
  search: searchPart,
};

/** Runs the named parts (bundled by scripts/bench.mjs), printing each table as it completes. */
export async function runParts(names: readonly string[], options: BenchOptions): Promise<void> {
  const context: BenchContext = {
    corpora: options.corpora,
    notes: options.notes,
    queries: options.queries,
    useLite: () => WorkerEmbedder.start({ workerFile: options.workerFile }),
  };
  for (const name of names) {
    const part = PARTS[name];
    if (!part) throw new Error(`unknown bench part "${name}"`);
    const start = performance.now();
    console.log(`\n## ${name}`);
    console.log(await part(context));
    console.log(
      `(${((performance.now() - start) / 1000).toFixed(1)} s; RSS now ${rssMb().toFixed(0)} MB)`,
    );
  }
}
