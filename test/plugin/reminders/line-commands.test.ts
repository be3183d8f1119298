import { describe, expect, it } from 'vitest';
import {
  addReminderToLine,
  completeLine,
  snoozeChoices,
  snoozeLine,
} from '../../../plugin/reminders/line-commands';

const ZONE = 'Europe/Berlin';
// Monday 2026-11-23 09:00 Berlin.
const NOW = Date.parse('2026-11-23T08:00:00Z');
const options = { now: NOW, zone: ZONE, newBlockId: () => '^r-new1' };

describe('addReminderToLine', () => {
  it('appends tomorrow 09:00 in absolute form and a block id to a plain line', () => {
    expect(addReminderToLine('- [ ] Call the bank', options)).toEqual({
      ok: true,
      line: '- [ ] Call the bank @remind(2026-11-24 09:00) ^r-new1',
    });
  });

  it('keeps an existing block id at the end', () => {
    expect(addReminderToLine('Water plants ^abc', options)).toEqual({
      ok: true,
      line: 'Water plants @remind(2026-11-24 09:00) ^abc',
    });
  });

  it('normalises natural language already on the line', () => {
    expect(addReminderToLine('Call @remind(in 2 hours)', options)).toEqual({
      ok: true,
      line: 'Call @remind(2026-11-23 11:00) ^r-new1',
    });
  });

  it('refuses invalid text and control characters, leaving the line alone', () => {
    const invalid = addReminderToLine('x @remind(2026-13-01 09:00)', options);
    expect(invalid.ok).toBe(false);
    expect(!invalid.ok && invalid.problem).toContain('month 13');
    expect(addReminderToLine('x\u0007y', options).ok).toBe(false);
  });

  it('reports an unknown vault zone instead of writing a wrong time', () => {
    const result = addReminderToLine('x', { ...options, zone: 'Nowhere/Land' });
    expect(result.ok).toBe(false);
  });
});

describe('snoozeLine', () => {
  const until = NOW + 15 * 60_000;
  it('moves a one-off token to the snooze time in the vault zone', () => {
    expect(snoozeLine('- [ ] Call @remind(2026-11-23 09:00) ^r-a', until, ZONE)).toEqual({
      ok: true,
      line: '- [ ] Call @remind(2026-11-23 09:15) ^r-a',
    });
  });

  it("keeps a token's own zone", () => {
    expect(snoozeLine('Call @remind(2026-11-23 03:00 America/New_York)', until, ZONE)).toEqual({
      ok: true,
      line: 'Call @remind(2026-11-23 03:15 America/New_York)',
    });
  });

  it('refuses recurring, checked, missing and broken tokens', () => {
    expect(snoozeLine('x @remind(every day 09:00)', until, ZONE).ok).toBe(false);
    expect(snoozeLine('- [x] x @remind(2026-11-23 09:00)', until, ZONE).ok).toBe(false);
    expect(snoozeLine('nothing here', until, ZONE).ok).toBe(false);
    expect(snoozeLine('x @remind(2026-11-23', until, ZONE).ok).toBe(false);
  });

  it('offers 15 minutes, 1 hour and tomorrow 09:00', () => {
    expect(snoozeChoices(NOW, ZONE).map((choice) => new Date(choice.until).toISOString())).toEqual([
      '2026-11-23T08:15:00.000Z',
      '2026-11-23T09:00:00.000Z',
      '2026-11-24T08:00:00.000Z',
    ]);
  });
});

describe('completeLine', () => {
  it('checks the box of task lines, in lists, quotes and numbered lists', () => {
    expect(completeLine('- [ ] Call @remind(2026-11-23 09:00)')).toEqual({
      ok: true,
      line: '- [x] Call @remind(2026-11-23 09:00)',
    });
    expect(completeLine('> 1. [/] Half done')).toEqual({ ok: true, line: '> 1. [x] Half done' });
  });

  it('refuses plain lines and done tasks', () => {
    expect(completeLine('Water plants @remind(every day 09:00)').ok).toBe(false);
    expect(completeLine('- [x] Done').ok).toBe(false);
    expect(completeLine('').ok).toBe(false);
  });
});

describe("other plugins' formats", () => {
  it("gives a Tasks line Tasks' done date, before its block id, once", () => {
    expect(
      completeLine('- [ ] Form ⏰ 2026-11-23 10:00 📅 2026-11-24 ^r-f', { today: '2026-11-23' }),
    ).toEqual({
      ok: true,
      line: '- [x] Form ⏰ 2026-11-23 10:00 📅 2026-11-24 ✅ 2026-11-23 ^r-f',
    });
    expect(completeLine('- [ ] Plain @remind(2026-11-23 09:00)', { today: '2026-11-23' })).toEqual({
      ok: true,
      line: '- [x] Plain @remind(2026-11-23 09:00)',
    });
  });

  it('refuses a recurring Tasks line and snoozing a format Cairn only reads', () => {
    const recurring = completeLine('- [ ] Water ⏰ 2026-11-23 18:00 🔁 every week', {
      today: '2026-11-23',
    });
    expect(!recurring.ok && recurring.problem).toContain('Tasks');
    const foreign = snoozeLine('- [ ] Call (@2026-11-23 17:00)', NOW, ZONE);
    expect(!foreign.ok && foreign.problem).toContain('Reminder plugin');
  });
});
