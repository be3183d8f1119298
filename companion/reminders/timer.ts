/**
 * The one timer the scheduler keeps, behind a port so tests drive it with a manual clock.
 *
 * Why sleeps are capped at {@link MAX_SLEEP_MS}: Node's `setTimeout` counts on a monotonic clock
 * that does not advance while the machine is suspended, and knows nothing of wall-clock
 * corrections (NTP steps, a VM resumed from a snapshot). A reminder due in two days, armed as
 * one long timeout, could fire hours late after a laptop-style suspend. Waking at most every
 * ten minutes to re-read the wall clock bounds that lateness to ten minutes at a cost of 144
 * wake-ups a day, each a heap peek: no polling of the database or the vault. (`setTimeout` also
 * overflows above 2^31-1 ms, about 24.8 days, and fires at once; the cap avoids that too.)
 */
export const MAX_SLEEP_MS = 10 * 60_000;

export interface TimerHandle {
  readonly __timer: unique symbol;
}

export interface TimerPort {
  /** Calls `callback` once after about `delayMs` (0 … {@link MAX_SLEEP_MS}). */
  set(callback: () => void, delayMs: number): TimerHandle;
  clear(handle: TimerHandle): void;
}

/** The real timer. Unref'd: a pending reminder alone does not keep the process alive. */
export const nodeTimer: TimerPort = {
  set(callback, delayMs) {
    const handle = setTimeout(callback, delayMs);
    handle.unref();
    return handle as unknown as TimerHandle;
  },
  clear(handle) {
    clearTimeout(handle as unknown as NodeJS.Timeout);
  },
};
