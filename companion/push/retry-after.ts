/*
 * A push service's Retry-After header (RFC 8030 §8.4 for 429; RFC 9110 §10.2.3 for 503), read as
 * a fact for the scheduler's retry policy (companion/reminders/retry-policy.ts), which decides.
 */

/** A Retry-After beyond this is treated as this: a reminder an hour late is already wrong. */
export const RETRY_AFTER_CAP_MS = 60 * 60_000;

/**
 * A Retry-After value (delay seconds or an HTTP date) as milliseconds from `nowMs`, capped;
 * undefined when absent or unreadable (the retry policy falls back to backoff).
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
