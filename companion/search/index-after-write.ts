import type { VaultIndexer } from './vault-indexer';

/** Whether a file the companion just wrote is in the search index, and if not why. */
export interface IndexOutcome {
  readonly indexed: boolean;
  readonly error?: string;
}

/** Indexes a vault-relative path the companion just wrote, without waiting for the watcher. */
export type IndexAfterWrite = (path: string) => Promise<IndexOutcome>;

/** Problems looked through for the written file's own. */
const PROBLEMS_SCANNED = 10_000;

/**
 * Over the running indexer: `refresh` indexes just this file now (no debounce, no vault walk);
 * the index then says whether it took. The watcher sees the file too, a debounce later; indexing
 * unchanged content twice is a no-op (content hash).
 */
export function indexAfterWrite(indexer: VaultIndexer): IndexAfterWrite {
  return async (path) => {
    await indexer.refresh([path]);
    const problem = indexer.store.problems(PROBLEMS_SCANNED).find((entry) => entry.path === path);
    if (problem && !problem.error.startsWith('indexed partly')) {
      return { indexed: false, error: problem.error };
    }
    if (indexer.store.fileState(path) === undefined) {
      return { indexed: false, error: 'the indexer did not take the file (excluded by settings?)' };
    }
    return problem ? { indexed: true, error: problem.error } : { indexed: true };
  };
}
