import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  MAX_RETRY_DELAY_MS,
  MIN_RETRY_DELAY_MS,
  backoffDelayMs,
  retryDelayMs,
} from '../../../companion/reminders/retry-policy';

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

describe('retryDelayMs', () => {
  it("takes the push service's Retry-After when it sent one, else backoff", () => {
    expect(retryDelayMs(1, 7_000, () => 1)).toBe(7_000);
    expect(retryDelayMs(3, undefined, () => 1)).toBe(40_000);
  });

  it('clamps every wish into one second to one hour', () => {
    expect(retryDelayMs(1, 0, () => 1)).toBe(MIN_RETRY_DELAY_MS);
    expect(retryDelayMs(1, 10 * MAX_RETRY_DELAY_MS, () => 1)).toBe(MAX_RETRY_DELAY_MS);
  });
});
