import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * One full garbage collection, on purpose, once the start-up work has settled (the first index
 * or a restart: scan done, every text embedded, vectors loaded for search), when the companion
 * is about to idle for hours. V8 collects when allocation asks for it, and an idle process
 * allocates next to nothing: measured at 10k notes (scripts/bench/idle-memory.mjs), the heap
 * indexing had grown to stayed at 147 MB with 63 MB of it live through a quiet minute, and
 * dead SQLite blob copies held arrayBuffers 6 MB above the vectors; one full GC took RSS from
 * 386 to 300 MB, in ~50 ms once.
 *
 * `gc` is not exposed without `--expose-gc` on the command line, which `node cli.mjs` (and
 * `npx`) does not pass: the flag is set at run time and `gc` taken from a new context, which
 * gets it (as jest's leak detector does). Should a Node version refuse, nothing is collected.
 */

let collect: (() => void) | null | undefined;

/** Runs a full GC; answers how long it took (ms), or null when `gc` is not available. */
export function collectGarbage(): number | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
      collect = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collect = null;
    }
  }
  if (collect === null) return null;
  const started = performance.now();
  collect();
  return performance.now() - started;
}
