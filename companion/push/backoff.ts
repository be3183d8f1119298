/*
 * When to try a push again. Exponential backoff with jitter (so many reminders failing together
 * at one push service do not all come back in the same second), and a push service's own
 * Retry-After when it sends one (RFC 8030 §8.4 for 429; RFC 9110 §10.2.3 for 503).
 */

export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_CAP_MS = 10 * 60_000;
/** A Retry-After beyond this is treated as this: a reminder an hour late is already wrong. */
export const RETRY_AFTER_CAP_MS = 60 * 60_000;

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed: the exponential
 * step `base · 2^(attempt-1)` capped, then "equal jitter": half fixed, half random, so it is
 * never near zero and never above the step.
 */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** exponent);
  const jitter = Math.min(Math.max(random(), 0), 1);
  return Math.round(step / 2 + (step / 2) * jitter);
}

/**
 * A Retry-After value (delay seconds or an HTTP date) as milliseconds from `nowMs`, capped;
 * undefined when absent or unreadable (the caller falls back to backoff).
 */
export function parseRetryAfterMs(
  header: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_CAP_MS);
  // HTTP dates (all three RFC 9110 forms) start with a day name; Date.parse alone would also
  // read "-5" or "1.5" as dates.
  if (!/^[A-Za-z]{3,9},?\s/.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(date - nowMs, 0), RETRY_AFTER_CAP_MS);
}
