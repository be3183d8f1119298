import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './logging';

/*
 * One full garbage collection, on purpose, once the start-up work has settled (the first index
 * or a restart: scan done, every text embedded, vectors loaded for search), when the companion
 * is about to idle for hours. V8 collects when allocation asks for it, and an idle process
 * allocates next to nothing: measured at 10k notes (scripts/bench/idle-memory.mjs), the heap
 * indexing had grown to stayed at 147 MB with 63 MB of it live through a quiet minute, and
 * dead SQLite blob copies held arrayBuffers 6 MB above the vectors; a full GC then took RSS
 * from 386 to 300 MB. It costs a pause once per start: 70–380 ms for both below, measured on
 * two loaded cores.
 *
 * `gc` is not exposed without `--expose-gc` on the command line, which `node cli.mjs` (and
 * `npx`) does not pass: the flag is set at run time and `gc` taken from a new context, which
 * gets it (as jest's leak detector does). Should a Node version refuse, nothing is collected.
 *
 * Twice, SECOND_GC_DELAY_MS apart. The first, right as the work settles, frees the dead
 * objects (heapUsed 107 → 52 MB in a keyword-only first index of 10k notes) but keeps the young
 * generation at the size indexing grew it to: V8 shrinks it only in a GC that sees a low
 * allocation rate over the seconds before, and the tail of the work (reminders following the
 * index's changes) still allocates then. A second one 10 s later still saw heapTotal 84 MB for
 * 43 MB live; 30 s later it fell to 52 MB (RSS −31 MB, a restart at 10k notes).
 */

export const SECOND_GC_DELAY_MS = 30_000;

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

/** The start-up work settled: collect now and once more a little later, then log the result. */
export function collectStartupGarbage(logger: Logger, delayMs = SECOND_GC_DELAY_MS): void {
  const rssBefore = process.memoryUsage.rss();
  const first = collectGarbage();
  if (first === null) return;
  const timer = setTimeout(() => {
    const second = collectGarbage() ?? 0;
    logger.info(
      {
        ms: Math.round(first + second),
        rssBeforeMb: Math.round(rssBefore / 2 ** 20),
        rssAfterMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
      },
      'start-up work settled; its garbage collected',
    );
  }, delayMs);
  timer.unref();
}
