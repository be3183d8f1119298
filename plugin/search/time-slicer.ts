/**
 * How the indexer shares the main thread (docs/principles.md, docs/search.md): it works in slices, measures them with
 * `now()`, and gives the UI a turn between slices. Injected so tests decide when turns happen.
 */
export interface TimeSlicer {
  /** Monotonic milliseconds (performance.now in the app). */
  now(): number;
  /** Resolves after the UI had a turn (requestIdleCallback or setTimeout 0). */
  yieldToUi(): Promise<void>;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** The app's time slicer: idle callbacks where the platform has them, timeouts otherwise. */
export function browserTimeSlicer(win: {
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
  requestIdleCallback?: (fn: () => void, options?: { timeout: number }) => number;
}): TimeSlicer {
  return {
    now: () => performance.now(),
    yieldToUi: () =>
      new Promise<void>((resolve) => {
        if (typeof win.requestIdleCallback === 'function') {
          win.requestIdleCallback(() => resolve(), { timeout: 100 });
        } else win.setTimeout(resolve, 0);
      }),
    after: (ms, fn) => {
      const id = win.setTimeout(fn, ms);
      return () => win.clearTimeout(id);
    },
  };
}
