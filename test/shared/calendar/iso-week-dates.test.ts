import { describe, expect, it } from 'vitest';
import { isoWeekOfDate, mondayOfIsoWeek, shiftIsoWeek } from '../../../shared/calendar/iso-week';

describe('ISO weeks as text, for the Week view', () => {
  it.each([
    ['2026-11-23', '2026-W48'],
    ['2026-11-29', '2026-W48'],
    ['2026-11-30', '2026-W49'],
    // Week 1 holds the year's first Thursday: these days belong to the neighbouring year.
    ['2027-01-01', '2026-W53'],
    ['2024-12-30', '2025-W01'],
    ['2021-01-03', '2020-W53'],
    ['2026-01-01', '2026-W01'],
  ])('%s is in %s', (date, week) => {
    expect(isoWeekOfDate(date)).toBe(week);
  });

  it('finds the Monday of a week, and steps across year ends', () => {
    expect(mondayOfIsoWeek('2026-W48')).toBe('2026-11-23');
    expect(mondayOfIsoWeek('2026-W01')).toBe('2025-12-29');
    expect(shiftIsoWeek('2026-W53', 1)).toBe('2027-W01');
    expect(shiftIsoWeek('2027-W01', -1)).toBe('2026-W53');
    expect(shiftIsoWeek('2026-W48', -48)).toBe('2025-W52');
  });

  it('refuses what is not a week or a date, naming it', () => {
    expect(() => mondayOfIsoWeek('2026-48')).toThrow('week "2026-48" is not an ISO week');
    expect(() => isoWeekOfDate('23.11.2026')).toThrow('not a date: "23.11.2026"');
  });

  it('refuses a week the year does not have, like the digest and the calendar routes', () => {
    expect(() => mondayOfIsoWeek('2026-W54')).toThrow('2026 has weeks 01 to 53');
    expect(() => mondayOfIsoWeek('2025-W53')).toThrow('2025 has weeks 01 to 52');
  });
});
