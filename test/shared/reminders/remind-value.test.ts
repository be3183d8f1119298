import { describe, expect, it } from 'vitest';
import {
  INLINE_RECURRENCE_START,
  MAX_REMIND_TEXT_LENGTH,
  classifyRemindText,
} from '../../../shared/reminders/index';

const ZONE = 'Europe/Berlin';

describe('classifyRemindText: absolute times', () => {
  it.each([
    ['2026-11-23 17:00', '2026-11-23T17:00', ZONE, false],
    ['2026-11-23T17:00', '2026-11-23T17:00', ZONE, false],
    ['  2026-11-23   17:00  ', '2026-11-23T17:00', ZONE, false],
    ['2026-11-23 9:05', '2026-11-23T09:05', ZONE, false],
    ['2026-1-5 09:00', '2026-01-05T09:00', ZONE, false],
    ['2028-02-29 00:00', '2028-02-29T00:00', ZONE, false],
    ['2026-12-31 23:59', '2026-12-31T23:59', ZONE, false],
    ['2027-01-10 09:00 America/New_York', '2027-01-10T09:00', 'America/New_York', true],
    ['2027-01-10 09:00 Asia/Kolkata', '2027-01-10T09:00', 'Asia/Kolkata', true],
    ['2027-01-10 09:00 UTC', '2027-01-10T09:00', 'UTC', true],
    ['2027-01-10 09:00 utc', '2027-01-10T09:00', 'UTC', true],
    ['2027-01-10 09:00 europe/berlin', '2027-01-10T09:00', ZONE, true],
    ['2027-01-10 09:00 US/Eastern', '2027-01-10T09:00', 'US/Eastern', true],
    // ICU knows Kolkata only as Calcutta, so this one keeps its (valid) spelling.
    ['2027-01-10 09:00 asia/kolkata', '2027-01-10T09:00', 'asia/kolkata', true],
    [
      '2027-01-10 09:00 America/Argentina/Buenos_Aires',
      '2027-01-10T09:00',
      'America/Argentina/Buenos_Aires',
      true,
    ],
    // A DST gap time is still a valid wall time; mapping it to an instant is next-fire's job.
    ['2026-03-29 02:30', '2026-03-29T02:30', ZONE, false],
  ])('%s is once at %s in %s', (text, start, zone, zoneWritten) => {
    expect(classifyRemindText(text, ZONE)).toEqual({ kind: 'once', start, zone, zoneWritten });
  });
});

describe('classifyRemindText: recurrences', () => {
  it.each([
    ['every monday 09:00', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'every'],
    ['Every Monday 09:00', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'every'],
    ['every day at 7pm', 'FREQ=DAILY;BYHOUR=19;BYMINUTE=0;BYSECOND=0', 'every'],
    [
      'every weekday 08:30',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30;BYSECOND=0',
      'every',
    ],
    [
      'every 2 weeks on friday 17:00',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
      'every',
    ],
    [
      'every month on the last day 18:00',
      'FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
      'every',
    ],
    ['every 15 minutes', 'FREQ=MINUTELY;INTERVAL=15;BYSECOND=0', 'every'],
    ['every hour', 'FREQ=HOURLY;BYMINUTE=0;BYSECOND=0', 'every'],
    [
      'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30',
      'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30',
      'rrule',
    ],
    ['rrule:freq=daily;byhour=7', 'FREQ=DAILY;BYHOUR=7', 'rrule'],
    ['FREQ=DAILY;BYHOUR=7;BYMINUTE=15', 'FREQ=DAILY;BYHOUR=7;BYMINUTE=15', 'rrule'],
    ['RRULE:FREQ=HOURLY;INTERVAL=4', 'FREQ=HOURLY;INTERVAL=4', 'rrule'],
    [
      'RRULE:FREQ=DAILY;BYHOUR=9;UNTIL=20271231T235959Z',
      'FREQ=DAILY;UNTIL=20271231T235959Z;BYHOUR=9',
      'rrule',
    ],
  ])('%s is recurring %s', (text, rrule, form) => {
    expect(classifyRemindText(text, ZONE)).toEqual({
      kind: 'recurring',
      rrule,
      start: INLINE_RECURRENCE_START,
      zone: ZONE,
      zoneWritten: false,
      form,
    });
  });

  it('reads a zone after a recurrence', () => {
    expect(classifyRemindText('every monday 09:00 America/New_York', ZONE)).toMatchObject({
      kind: 'recurring',
      zone: 'America/New_York',
      zoneWritten: true,
    });
    expect(classifyRemindText('RRULE:FREQ=DAILY;BYHOUR=9 Asia/Kolkata', ZONE)).toMatchObject({
      kind: 'recurring',
      zone: 'Asia/Kolkata',
    });
  });
});

describe('classifyRemindText: natural language (valid only while typing)', () => {
  it.each([
    'tomorrow 5pm',
    'next monday at 8',
    'in 2 hours',
    'friday',
    '5pm',
    'tonight',
    'tomorrow morning',
    'in 30 minutes',
    'dec 3 10:00',
    'next week',
    '2026-11-23',
    'tomorrow 5pm America/New_York',
    'Tomorrow  5PM',
  ])('%s is natural', (text) => {
    expect(classifyRemindText(text, ZONE)).toEqual({
      kind: 'natural',
      text: text.trim().replace(/\s+/g, ' '),
    });
  });
});

describe('classifyRemindText: bad input gets a precise reason', () => {
  const notReadable =
    'not a time I can read: write 2026-11-23 17:00, every monday 09:00, RRULE:… or words like tomorrow 5pm';
  it.each([
    ['2026-13-01', 'month 13 does not exist'],
    ['2026-13-01 09:00', 'month 13 does not exist'],
    ['2026-00-10 09:00', 'month 0 does not exist'],
    ['2026-02-30 10:00', 'February 2026 has no day 30'],
    ['2026-02-29 10:00', 'February 2026 has no day 29'],
    ['2026-04-31', 'April 2026 has no day 31'],
    ['2026-11-00 10:00', 'November 2026 has no day 0'],
    ['2026-11-23 25:00', '25:00 is not a time of day (00:00 to 23:59)'],
    ['2026-11-23 24:00', '24:00 is not a time of day (00:00 to 23:59)'],
    ['2026-11-23 17:60', '17:60 is not a time of day (00:00 to 23:59)'],
    ['2026-13-01 at noon', 'month 13 does not exist'],
    [
      '2026-11-23 17:00 Mars/Olympus',
      'unknown time zone "Mars/Olympus" (use an IANA name like Europe/Berlin)',
    ],
    [
      'every monday 09:00 Europe/Berln',
      'unknown time zone "Europe/Berln" (use an IANA name like Europe/Berlin)',
    ],
    ['', 'empty: write a time like 2026-11-23 17:00, every monday 09:00 or tomorrow 5pm'],
    ['   ', 'empty: write a time like 2026-11-23 17:00, every monday 09:00 or tomorrow 5pm'],
    ['every', 'nothing follows "every"'],
    [
      'every monday',
      '"every monday" needs a time of day, e.g. "every monday 09:00" or "every monday at 7pm"',
    ],
    [
      'every funday 09:00',
      '"every funday 09:00": "funday" is not a unit (minute, hour, day, week, month, year, weekday, weekend or a weekday name like monday)',
    ],
    ['every day 25:00', 'time "25:00" is not a time of day (00:00 to 23:59)'],
    [
      'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=9',
      'RRULE never occurs: no date matches all of its BY parts',
    ],
    [
      'RRULE:FREQ=DAILY',
      'RRULE needs BYHOUR (and BYMINUTE) in an inline reminder: there is no start to take the time of day from',
    ],
    [
      'RRULE:FREQ=WEEKLY;BYDAY=MO',
      'RRULE needs BYHOUR (and BYMINUTE) in an inline reminder: there is no start to take the time of day from',
    ],
    [
      'RRULE:FREQ=DAILY;COUNT=3;BYHOUR=9',
      'COUNT needs a start date, which an inline reminder does not have: use UNTIL',
    ],
    ['blah', notReadable],
    ['tomorrow (after lunch)', notReadable],
    ['tomorrow 5pm call mum', notReadable],
    ['2026-11-23 17:00 17:00', notReadable],
    ['@remind(2026-11-23 17:00)', notReadable],
    ['17:00 2026-11-23 extra words', notReadable],
    ['))((', notReadable],
    ['\u0000\u0001', 'contains a control character (U+0000)'],
    ['tomorrow\u0007 5pm', 'contains a control character (U+0007)'],
    ['2026-11-23\n17:00', 'contains a control character (U+000A)'],
    [
      'x'.repeat(MAX_REMIND_TEXT_LENGTH + 1),
      `too long (${MAX_REMIND_TEXT_LENGTH + 1} characters; at most ${MAX_REMIND_TEXT_LENGTH})`,
    ],
  ])('%j: %s', (text, reason) => {
    const zoneProblem = reason.startsWith('unknown time zone') ? { field: 'zone' } : {};
    expect(classifyRemindText(text, ZONE)).toEqual({ kind: 'invalid', reason, ...zoneProblem });
  });

  it('a bad RRULE part is named by the recurrence validator', () => {
    const value = classifyRemindText('RRULE:FREQ=DAILY;BYHOUR=27', ZONE);
    expect(value.kind).toBe('invalid');
    expect(value.kind === 'invalid' && value.reason).toMatch(/BYHOUR/);
  });

  it('an invalid default zone is reported, a written zone still works', () => {
    expect(classifyRemindText('2026-11-23 17:00', 'Nowhere/Land')).toEqual({
      kind: 'invalid',
      reason: 'unknown default time zone "Nowhere/Land"',
      field: 'zone',
    });
    expect(classifyRemindText('2026-11-23 17:00 Asia/Kolkata', 'Nowhere/Land')).toMatchObject({
      kind: 'once',
      zone: 'Asia/Kolkata',
    });
  });

  it('remembered answers are per zone and cannot be changed by a caller', () => {
    const berlin = classifyRemindText('2026-11-23 17:00', ZONE);
    const kolkata = classifyRemindText('2026-11-23 17:00', 'Asia/Kolkata');
    expect(berlin).toMatchObject({ zone: ZONE });
    expect(kolkata).toMatchObject({ zone: 'Asia/Kolkata' });
    expect(classifyRemindText('2026-11-23 17:00', ZONE)).toBe(berlin);
    expect(() => {
      (berlin as { zone: string }).zone = 'UTC';
    }).toThrow(TypeError);
  });

  it('never throws on random input', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = '0123456789-: T()@/aeimnoprstuvwyEFQRULY;=\u0000\u00e9\u{1F600}';
    const chars = [...alphabet];
    for (let round = 0; round < 500; round++) {
      const length = Math.floor(random() * 40);
      let text = '';
      for (let index = 0; index < length; index++) {
        text += chars[Math.floor(random() * chars.length)];
      }
      const value = classifyRemindText(text, ZONE);
      expect(['once', 'recurring', 'natural', 'invalid']).toContain(value.kind);
    }
    expect(classifyRemindText(undefined as unknown as string, ZONE)).toEqual({
      kind: 'invalid',
      reason: 'not text',
    });
  });
});
