import { describe, expect, it } from 'vitest';
import { todayIn } from '../../../companion/web/today';

describe('todayIn', () => {
  it('reads today in a zone, not the process zone', () => {
    const instant = Date.parse('2026-11-23T23:30:00Z');
    expect(todayIn(instant, 'Europe/Berlin')).toBe('2026-11-24');
    expect(todayIn(instant, 'America/New_York')).toBe('2026-11-23');
  });
});
