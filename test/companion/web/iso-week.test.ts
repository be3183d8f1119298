import { describe, expect, it } from 'vitest';
import { isoWeekOf, mondayOf, shiftWeek, todayIn } from '../../../companion/web/iso-week';

describe('ISO weeks for the Week view', () => {
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
    expect(isoWeekOf(date)).toBe(week);
  });

  it('finds the Monday of a week, and steps across year ends', () => {
    expect(mondayOf('2026-W48')).toBe('2026-11-23');
    expect(mondayOf('2026-W01')).toBe('2025-12-29');
    expect(shiftWeek('2026-W53', 1)).toBe('2027-W01');
    expect(shiftWeek('2027-W01', -1)).toBe('2026-W53');
    expect(shiftWeek('2026-W48', -48)).toBe('2025-W52');
  });

  it('refuses what is not a week or a date, naming it', () => {
    expect(() => mondayOf('2026-48')).toThrow('not an ISO week: "2026-48"');
    expect(() => isoWeekOf('23.11.2026')).toThrow('not a date: "23.11.2026"');
  });

  it('reads today in a zone, not the process zone', () => {
    const instant = Date.parse('2026-11-23T23:30:00Z');
    expect(todayIn(instant, 'Europe/Berlin')).toBe('2026-11-24');
    expect(todayIn(instant, 'America/New_York')).toBe('2026-11-23');
  });
});
