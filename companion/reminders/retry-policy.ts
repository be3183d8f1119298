/*
 * The one retry policy for reminder deliveries: how long to wait before trying a device again,
 * and when to stop. It lives with the scheduler because only the scheduler can make a retry
 * survive a restart (its delivery log is durable); the carrier only reports what happened.
 *
 * Exponential backoff with "equal jitter" (half fixed, half random, so many reminders failing
 * together at one push service do not all come back in the same second), or the push service's
 * own Retry-After when it sent one (RFC 8030 §8.4 for 429; RFC 9110 §10.2.3 for 503).
 */

/** After this many attempts a retryable failure becomes `failed` (about 22 minutes of backoff). */
export const MAX_DELIVERY_ATTEMPTS = 8;
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_CAP_MS = 10 * 60_000;
/** Any delay, the service's included, is clamped to this range: an hour late is already wrong. */
export const MIN_RETRY_DELAY_MS = 1_000;
export const MAX_RETRY_DELAY_MS = 60 * 60_000;

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed: the exponential
 * step `base · 2^(attempt-1)` capped, half of it fixed and half random, so it is never near zero
 * and never above the step.
 */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** exponent);
  const jitter = Math.min(Math.max(random(), 0), 1);
  return Math.round(step / 2 + (step / 2) * jitter);
}

/** The wait after failed attempt `attempt`, honouring the service's Retry-After when given. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const wanted = retryAfterMs ?? backoffDelayMs(attempt, random);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(MIN_RETRY_DELAY_MS, wanted));
}
