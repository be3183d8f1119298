import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_CAP_MS, parseRetryAfterMs } from '../../../companion/push/retry-after';

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
