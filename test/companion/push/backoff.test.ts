import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  RETRY_AFTER_CAP_MS,
  backoffDelayMs,
  parseRetryAfterMs,
} from '../../../companion/push/backoff';

describe('backoffDelayMs', () => {
  it('doubles per attempt between half and all of the step, capped', () => {
    const low = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelayMs(attempt, () => 0));
    const high = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelayMs(attempt, () => 1));
    expect(high).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000]);
    expect(low).toEqual(high.map((step) => step / 2));
    expect(backoffDelayMs(1, () => 0.5)).toBe(BACKOFF_BASE_MS * 0.75);
  });

  it('stays bounded for absurd attempts and random values', () => {
    expect(backoffDelayMs(10_000, () => 1)).toBe(BACKOFF_CAP_MS);
    expect(backoffDelayMs(0, () => 0)).toBe(BACKOFF_BASE_MS / 2);
    expect(backoffDelayMs(1, () => 7)).toBe(BACKOFF_BASE_MS);
    expect(backoffDelayMs(1, () => -3)).toBe(BACKOFF_BASE_MS / 2);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it('reads delay seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 5 ', now)).toBe(5_000);
    expect(parseRetryAfterMs(['30', '60'], now)).toBe(30_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:02:00 GMT', now)).toBe(120_000);
  });

  it('caps long waits and treats past dates as now', () => {
    expect(parseRetryAfterMs('999999999', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it.each([undefined, '', '-5', '1.5', 'soon', '\u0000'])('ignores %j', (value) => {
    expect(parseRetryAfterMs(value, now)).toBeUndefined();
  });
});
