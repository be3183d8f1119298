import type { VaultIndexer } from './vault-indexer';

/** Whether a file the companion just wrote is in the search index, and if not why. */
export interface IndexOutcome {
  readonly indexed: boolean;
  readonly error?: string;
}

/** Indexes a vault-relative path the companion just wrote, without waiting for the watcher. */
export type IndexAfterWrite = (
  path: string,
  options?: { readonly waitMs?: number },
) => Promise<IndexOutcome>;

/**
 * The longest a write's answer waits for its file to be indexed. `refresh` resolves only when
 * the whole index is idle, which a note that keeps changing (a sync client, an editor saving
 * every keystroke) can put off without end: the write's answer must not wait for that.
 */
const INDEX_WAIT_MS = 2_000;

/** Problems looked through for the written file's own. */
const PROBLEMS_SCANNED = 10_000;

/**
 * Over the running indexer: `refresh` indexes just this file now (no debounce, no vault walk);
 * the index then says whether it took. The watcher sees the file too, a debounce later; indexing
 * unchanged content twice is a no-op (content hash).
 */
export function indexAfterWrite(
  indexer: VaultIndexer,
  waitMs: number = INDEX_WAIT_MS,
): IndexAfterWrite {
  return async (path, options) => {
    const settled = await fileIndexed(indexer, path, options?.waitMs ?? waitMs);
    const problem = indexer.store.problems(PROBLEMS_SCANNED).find((entry) => entry.path === path);
    if (problem && !problem.error.startsWith('indexed partly')) {
      return { indexed: false, error: problem.error };
    }
    if (!settled && indexer.store.fileState(path) === undefined) {
      return { indexed: false, error: 'not indexed yet: the index is busy; it follows shortly' };
    }
    if (indexer.store.fileState(path) === undefined) {
      return { indexed: false, error: 'the indexer did not take the file (excluded by settings?)' };
    }
    return problem ? { indexed: true, error: problem.error } : { indexed: true };
  };
}

/**
 * Indexes `path` now; resolves true once the index is idle or published this file, false after
 * `waitMs` (the file is then indexed later, by the same queue).
 */
async function fileIndexed(indexer: VaultIndexer, path: string, waitMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = (): void => undefined;
  const published = new Promise<boolean>((resolve) => {
    unsubscribe = indexer.onIndexed((change) => {
      if (change.path === path) resolve(true);
    });
    timer = setTimeout(() => resolve(false), waitMs);
  });
  try {
    return await Promise.race([indexer.refresh([path]).then(() => true), published]);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}
