import { describe, expect, it } from 'vitest';
import { previewRemindText } from '../../../shared/reminders/index';

/** Monday 2026-11-23 10:00 in Berlin. */
const now = Date.parse('2026-11-23T09:00:00Z');
const zone = 'Europe/Berlin';

describe('previewRemindText', () => {
  it.each([
    ['2026-11-23 17:00', 'today 17:00'],
    ['2026-11-24 09:00', 'tomorrow 09:00'],
    ['2026-11-23 09:00', 'past'],
    ['every monday 09:00', 'Mon 30 Nov 09:00'],
    ['every day 09:00', 'tomorrow 09:00'],
    ['every wednesday 18:30', 'Wed 18:30'],
    ['2026-11-23 17:00 America/New_York', 'today 17:00'],
    ['RRULE:FREQ=DAILY;BYHOUR=9;UNTIL=20200101T000000Z', 'ended'],
  ])('%s → %s', (text, label) => {
    expect(previewRemindText(text, { now, zone })).toMatchObject({ kind: 'scheduled', label });
  });

  it('shows what natural language will become', () => {
    expect(previewRemindText('tomorrow 5pm', { now, zone })).toEqual({
      kind: 'natural',
      resolved: '2026-11-24 17:00',
      next: Date.parse('2026-11-24T16:00:00Z'),
      label: '→ 2026-11-24 17:00 (tomorrow 17:00)',
    });
    expect(previewRemindText('friday', { now, zone, defaultTime: '08:00' })).toMatchObject({
      label: '→ 2026-11-27 08:00 (Fri 08:00)',
    });
  });

  it('a checked task is done', () => {
    expect(
      previewRemindText('2026-11-23 17:00', { now, zone, taskState: 'checked' }),
    ).toMatchObject({
      kind: 'scheduled',
      next: null,
      label: 'done',
    });
  });

  it.each([
    ['2026-13-01', 'month 13 does not exist'],
    ['yesterday', '"yesterday" is in the past (2026-11-22 09:00)'],
    ['', 'empty: write a time like 2026-11-23 17:00, every monday 09:00 or tomorrow 5pm'],
  ])('%j is invalid: %s', (text, reason) => {
    expect(previewRemindText(text, { now, zone })).toEqual({ kind: 'invalid', reason });
  });
});
