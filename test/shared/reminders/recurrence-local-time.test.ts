// Zone and wall-time helpers under the recurrence expander, under several process time zones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  civilFromDays,
  daysFromCivil,
  formatInZone,
  instantToWall,
  isValidZone,
  parseLocalDateTime,
  wallFromParts,
  wallToInstant,
  weekdayOfDay,
} from '../../../shared/reminders/local-time';

describe.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('under process TZ=%s', (processZone) => {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = processZone;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it.each([
    // Ordinary times.
    ['Europe/Berlin', '2026-01-15T09:00', '2026-01-15T08:00:00.000Z'],
    ['Europe/Berlin', '2026-07-15T09:00', '2026-07-15T07:00:00.000Z'],
    ['Asia/Kolkata', '2026-07-15T09:00', '2026-07-15T03:30:00.000Z'],
    ['UTC', '2026-07-15T09:00', '2026-07-15T09:00:00.000Z'],
    // Gaps: forward by the gap.
    ['Europe/Berlin', '2026-03-29T02:00', '2026-03-29T01:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:30:00.000Z'],
    ['Europe/Berlin', '2026-03-29T03:00', '2026-03-29T01:00:00.000Z'],
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T07:30:00.000Z'],
    ['Australia/Lord_Howe', '2026-10-04T02:15', '2026-10-03T15:45:00.000Z'],
    // Overlaps: the first instance.
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00.000Z'],
    ['America/New_York', '2026-11-01T02:00', '2026-11-01T07:00:00.000Z'],
    ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T00:30:00.000Z'],
    // The southern hemisphere changes the other way round.
    ['Australia/Sydney', '2026-04-05T02:30', '2026-04-04T15:30:00.000Z'],
    ['Australia/Sydney', '2026-10-04T02:30', '2026-10-03T16:30:00.000Z'],
  ])('wallToInstant(%s, %s) = %s', (zone, local, expected) => {
    const parsed = parseLocalDateTime(local);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(new Date(wallToInstant(parsed.wall, zone)).toISOString()).toBe(expected);
  });

  it('instantToWall inverts wallToInstant away from changes', () => {
    const wall = wallFromParts(2026, 6, 1, 9, 0);
    expect(instantToWall(wallToInstant(wall, 'America/New_York'), 'America/New_York')).toBe(wall);
  });

  it.each([
    [Date.UTC(1997, 8, 2, 13, 0), 'America/New_York', '1997-09-02T09:00:00-04:00'],
    [Date.UTC(1997, 11, 2, 14, 0), 'America/New_York', '1997-12-02T09:00:00-05:00'],
    [Date.UTC(2026, 2, 29, 1, 30), 'Europe/Berlin', '2026-03-29T03:30:00+02:00'],
    [Date.UTC(2026, 10, 1, 6, 30), 'America/New_York', '2026-11-01T01:30:00-05:00'],
    [Date.UTC(2026, 0, 1, 0, 0), 'Asia/Kolkata', '2026-01-01T05:30:00+05:30'],
    [Date.UTC(2026, 0, 1, 0, 0), 'UTC', '2026-01-01T00:00:00+00:00'],
  ])('formatInZone(%d, %s) = %s', (instant, zone, expected) => {
    expect(formatInZone(instant, zone)).toBe(expected);
  });
});

describe('parseLocalDateTime', () => {
  it('reads minute-resolution local times, seconds optional when 00', () => {
    expect(parseLocalDateTime('2026-11-23T17:00')).toEqual({
      ok: true,
      wall: Date.UTC(2026, 10, 23, 17, 0),
    });
    expect(parseLocalDateTime('2026-11-23T17:00:00')).toEqual(
      parseLocalDateTime('2026-11-23T17:00'),
    );
  });

  it.each([
    ['', 'is not a local date and time (YYYY-MM-DDTHH:mm)'],
    ['2026-11-23 17:00', 'is not a local date and time'],
    ['2026-11-23T17:00Z', 'is not a local date and time'],
    ['2026-11-23T17:00+01:00', 'is not a local date and time'],
    ['2026-02-29T09:00', '2026-02 has no day 29'],
    ['2026-13-01T09:00', '2026-13 has no day 1'],
    ['2026-04-31T09:00', '2026-04 has no day 31'],
    ['2026-01-01T24:00', '24:00 is not a time of day'],
    ['2026-01-01T09:60', '09:60 is not a time of day'],
    ['2026-01-01T09:00:30', 'seconds must be 00'],
  ])('rejects %j: %s', (text, message) => {
    const result = parseLocalDateTime(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});

describe('calendar arithmetic', () => {
  it('round-trips every day from 1600 to 2400, agreeing with Date, and knows weekdays', () => {
    const mismatches: number[] = [];
    for (let day = daysFromCivil(1600, 1, 1); day <= daysFromCivil(2400, 12, 31); day += 1) {
      const { year, month, day: dayOfMonth } = civilFromDays(day);
      const utc = new Date(day * 86_400_000);
      const agrees =
        daysFromCivil(year, month, dayOfMonth) === day &&
        utc.getUTCFullYear() === year &&
        utc.getUTCMonth() + 1 === month &&
        utc.getUTCDate() === dayOfMonth;
      if (!agrees) mismatches.push(day);
    }
    expect(mismatches).toEqual([]);
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(2000, 3, 1)).toBe(Date.UTC(2000, 2, 1) / 86_400_000);
    expect(weekdayOfDay(daysFromCivil(2026, 11, 23))).toBe(0); // a Monday
    expect(weekdayOfDay(daysFromCivil(1997, 9, 2))).toBe(1); // a Tuesday
  });

  it('knows IANA zones from anything else', () => {
    expect(isValidZone('Europe/Berlin')).toBe(true);
    expect(isValidZone('UTC')).toBe(true);
    for (const zone of ['', 'Mars/Olympus', 'Europe/Berlin ', 'GMT+25']) {
      expect(isValidZone(zone)).toBe(false);
    }
  });
});
