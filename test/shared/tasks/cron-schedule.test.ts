import { describe, expect, it } from 'vitest';
import { checkCron, cronLatestAtOrBefore, cronNextAfter } from '../../../shared/tasks';

/** The runs of `expression` in `zone` strictly after `fromIso`, as UTC ISO strings. */
function runs(expression: string, zone: string, fromIso: string, count: number): string[] {
  const found: string[] = [];
  let at = Date.parse(fromIso);
  while (found.length < count) {
    const next = cronNextAfter(expression, zone, at);
    if (next === undefined) break;
    found.push(new Date(next).toISOString());
    at = next;
  }
  return found;
}

describe('cron across DST (croner)', () => {
  it('spring-forward week in Berlin: a fixed time in the gap runs at the end of the gap, once', () => {
    // 2026-03-29 02:00 CET → 03:00 CEST. 02:30 does not exist that night.
    expect(runs('30 2 * * *', 'Europe/Berlin', '2026-03-27T00:00:00Z', 4)).toEqual([
      '2026-03-27T01:30:00.000Z', // Fri 02:30 CET
      '2026-03-28T01:30:00.000Z', // Sat 02:30 CET
      '2026-03-29T01:00:00.000Z', // Sun 03:00 CEST: first valid time after the gap
      '2026-03-30T00:30:00.000Z', // Mon 02:30 CEST
    ]);
  });

  it('fall-back week in Berlin: a fixed time in the repeated hour runs once, on its first pass', () => {
    // 2026-10-25 03:00 CEST → 02:00 CET: 02:30 happens twice.
    expect(runs('30 2 * * *', 'Europe/Berlin', '2026-10-24T00:00:00Z', 3)).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, not again at 02:30 CET
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('an interval job skips the gap and runs on both passes of the repeated hour', () => {
    expect(runs('0 * * * *', 'Europe/Berlin', '2026-03-29T00:30:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z', // 03:00 CEST (02:00 never happens)
      '2026-03-29T02:00:00.000Z',
    ]);
    expect(runs('0 * * * *', 'Europe/Berlin', '2026-10-24T23:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T02:00:00.000Z', // 03:00 CET
    ]);
  });

  it('Friday 17:00 in New York keeps its wall time across the November change', () => {
    expect(runs('0 17 * * FRI', 'America/New_York', '2026-10-28T00:00:00Z', 2)).toEqual([
      '2026-10-30T21:00:00.000Z', // EDT
      '2026-11-06T22:00:00.000Z', // EST
    ]);
  });

  it('finds the latest run at or before an instant (catch-up after downtime)', () => {
    const slot = Date.parse('2026-11-27T16:00:00Z'); // Fri 17:00 CET
    expect(cronLatestAtOrBefore('0 17 * * FRI', 'Europe/Berlin', slot)).toBe(slot);
    expect(cronLatestAtOrBefore('0 17 * * FRI', 'Europe/Berlin', slot - 1)).toBe(
      slot - 7 * 86_400_000,
    );
    expect(cronNextAfter('0 17 * * FRI', 'Europe/Berlin', slot)).toBe(slot + 7 * 86_400_000);
  });

  it('refuses what is not a five-field cron string, or never runs', () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    expect(checkCron('0 17 * * FRI', 'Europe/Berlin', from)).toEqual({ ok: true });
    expect(checkCron('@weekly', 'UTC', from)).toEqual({ ok: true });
    expect(checkCron('0 0 17 * * 5', 'UTC', from).ok).toBe(false);
    expect(checkCron('61 * * * *', 'UTC', from)).toMatchObject({
      ok: false,
      message: expect.stringContaining('minute'),
    });
    expect(checkCron('0 0 31 2 *', 'UTC', from)).toMatchObject({
      ok: false,
      message: expect.stringContaining('never runs'),
    });
  });
});
