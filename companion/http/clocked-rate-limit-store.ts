import type { Clock } from '../../shared/ports';

/*
 * The counting store of @fastify/rate-limit (its `store` option), on the companion's injected
 * clock instead of Date.now, so tests move time to the end of a window instead of waiting for
 * it. The same fixed windows as the plugin's own LocalStore: a key's window starts at its first
 * request and ends `timeWindow` later; at most MAX_KEYS keys are kept, the least recently
 * counted dropped first (as LocalStore's LRU of 5000).
 */

const MAX_KEYS = 5000;

interface Window {
  current: number;
  startMs: number;
}

type Answer = (error: Error | null, result: { current: number; ttl: number }) => void;

/** A store class for `app.register(rateLimit, { store })`, counting on `clock`. */
export function clockedRateLimitStore(clock: Clock) {
  return class ClockedRateLimitStore {
    private readonly windows = new Map<string, Window>();

    incr(key: string, answer: Answer, timeWindow: number): void {
      const now = clock.now();
      let window = this.windows.get(key);
      // A clock set back (NTP, a test) starts a new window rather than stretching this one.
      if (window === undefined || now < window.startMs || window.startMs + timeWindow <= now) {
        window = { current: 0, startMs: now };
      }
      window.current++;
      // Re-inserted: the Map's order is the least recently counted first.
      this.windows.delete(key);
      this.windows.set(key, window);
      if (this.windows.size > MAX_KEYS) {
        const oldest = this.windows.keys().next();
        if (!oldest.done) this.windows.delete(oldest.value);
      }
      answer(null, { current: window.current, ttl: window.startMs + timeWindow - now });
    }

    read(key: string, answer: Answer, timeWindow: number): void {
      const now = clock.now();
      const window = this.windows.get(key);
      if (window === undefined || now < window.startMs || window.startMs + timeWindow <= now) {
        answer(null, { current: 0, ttl: 0 });
        return;
      }
      answer(null, { current: window.current, ttl: window.startMs + timeWindow - now });
    }

    /** Each limiter (`createRateLimit`) counts in a store of its own. */
    child(): ClockedRateLimitStore {
      return new ClockedRateLimitStore();
    }
  };
}
