import { describe, expect, it } from 'vitest';
import { formatInZone } from '../../../shared/reminders/local-time';
import { parseEveryPhrase } from '../../../shared/reminders/every-phrase';
import { nextOccurrences, validateRrule } from '../../../shared/reminders/recurrence';

describe('parseEveryPhrase', () => {
  it.each([
    ['day 08:00', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0'],
    ['day at 8am', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0'],
    ['day at 8', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0'],
    ['2 days at 8:15 pm', 'FREQ=DAILY;INTERVAL=2;BYHOUR=20;BYMINUTE=15;BYSECOND=0'],
    ['monday 09:00', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['Monday 09:00', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['mondays at noon', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=12;BYMINUTE=0;BYSECOND=0'],
    ['sunday midnight', 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=0;BYMINUTE=0;BYSECOND=0'],
    ['weekday at 7:30', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=7;BYMINUTE=30;BYSECOND=0'],
    ['weekend 10:00', 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10;BYMINUTE=0;BYSECOND=0'],
    ['2 weeks on tuesday 18:00', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;BYHOUR=18;BYMINUTE=0;BYSECOND=0'],
    [
      'other week on tue and thu 18:00',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;BYHOUR=18;BYMINUTE=0;BYSECOND=0',
    ],
    ['week 09:00', 'FREQ=WEEKLY;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['mon, wed, fri 9:30', 'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30;BYSECOND=0'],
    ['mon,wed & fri at 9:30am', 'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30;BYSECOND=0'],
    ['month on the 1st 09:00', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['month on the 15 at 9', 'FREQ=MONTHLY;BYMONTHDAY=15;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    [
      '3 months on the last day 17:00',
      'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=-1;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
    ],
    ['month on the first monday 9:00', 'FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0'],
    ['month on the last friday at 4pm', 'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=16;BYMINUTE=0;BYSECOND=0'],
    ['month on the 2nd tuesday 12:30', 'FREQ=MONTHLY;BYDAY=2TU;BYHOUR=12;BYMINUTE=30;BYSECOND=0'],
    ['year on 12-25 10:00', 'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=10;BYMINUTE=0;BYSECOND=0'],
    [
      'year on dec 25 10:00',
      'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
    ],
    [
      'year on 25 december at 10am',
      'FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
    ],
    [
      'year on the 29th of february 09:00',
      'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
    ],
    ['hour', 'FREQ=HOURLY;BYMINUTE=0;BYSECOND=0'],
    ['2 hours', 'FREQ=HOURLY;INTERVAL=2;BYMINUTE=0;BYSECOND=0'],
    ['15 minutes', 'FREQ=MINUTELY;INTERVAL=15;BYSECOND=0'],
    ['every day 08:00', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0'],
    ['  day   08:00 ', 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0'],
  ])('reads "every %s" as %s', (phrase, rrule) => {
    expect(parseEveryPhrase(phrase)).toEqual({ ok: true, rrule });
  });

  it('produces rules that validateRrule accepts unchanged', () => {
    for (const phrase of ['monday 09:00', 'month on the last friday at 4pm', '15 minutes']) {
      const result = parseEveryPhrase(phrase);
      expect(result.ok).toBe(true);
      if (result.ok) expect(validateRrule(result.rrule)).toEqual({ ok: true, rrule: result.rrule });
    }
  });

  it('"every monday 09:00" expands to Mondays at 09:00 Berlin time across the spring change', () => {
    const result = parseEveryPhrase('monday 09:00');
    if (!result.ok) throw new Error(result.message);
    // The start is the Wednesday the line was written; the first run is the next Monday.
    const instants = nextOccurrences(
      { rrule: result.rrule, start: '2026-03-18T09:00' },
      Date.UTC(2026, 2, 18, 12, 0),
      'Europe/Berlin',
      2,
    );
    expect(instants.map((i) => formatInZone(i, 'Europe/Berlin'))).toEqual([
      '2026-03-23T09:00:00+01:00',
      '2026-03-30T09:00:00+02:00',
    ]);
  });

  it.each([
    ['', 'nothing follows "every"'],
    ['   ', 'nothing follows "every"'],
    ['monday', '"every monday" needs a time of day, e.g. "every monday 09:00"'],
    ['day', '"every day" needs a time of day'],
    ['month on the 1st', '"every month on the 1st" needs a time of day'],
    ['fortnight 09:00', '"every fortnight 09:00": "fortnight" is not a unit'],
    ['mon, funday 9:00', '"funday" is not a unit'],
    ['day 8', 'unexpected "8" (a time of day goes last'],
    ['09:00', 'what repeats?'],
    ['day 25:00', 'time "25:00" is not a time of day'],
    ['day 13pm', 'time "13pm": with am/pm the hour must be 1 to 12'],
    ['day at 24', 'time "at 24" is not a time of day'],
    ['hour 09:00', 'a time of day does not fit a rule in hours'],
    ['15 minutes at 9am', 'a time of day does not fit a rule in minutes'],
    ['0 days 09:00', 'the interval must be at least 1'],
    ['1001 days 09:00', 'INTERVAL: "1001" must be a whole number from 1 to 1000'],
    ['week on funday 09:00', '"funday" is not a weekday'],
    ['week on 09:00', '"on" needs a day after it'],
    ['month on the 32nd 09:00', 'a month has no day 32'],
    ['month on the middle 09:00', '"on the middle" is not a day of the month'],
    ['month on the sixth monday 09:00', '"on the sixth monday" is not a day of the month'],
    [`day ${'x'.repeat(200)}`, 'every-phrase is too long (at most 200 characters)'],
    ['year on 02-30 10:00', 'February has no day 30'],
    ['year on 13-01 10:00', '"on 13-01" is not a date of the year'],
    ['year on smarch 3 10:00', '"on smarch 3" is not a date of the year'],
    ['day on monday 09:00', '"on monday" does not fit this rule'],
    ['monday on tuesday 09:00', '"on tuesday" does not fit this rule'],
  ])('rejects "every %s": %s', (phrase, message) => {
    const result = parseEveryPhrase(phrase);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });

  it('never throws, whatever it is given', () => {
    for (const input of [
      undefined,
      null,
      7,
      'at',
      'on',
      'every every',
      '2',
      'other',
      ',,,',
      'a'.repeat(10_000),
    ]) {
      expect(() => parseEveryPhrase(input as unknown as string)).not.toThrow();
    }
  });
});

describe('a phrase that lacks only its time of day', () => {
  it('says so in a flag, so a caller can add a time without reading the message', () => {
    expect(parseEveryPhrase('every weekday')).toMatchObject({ ok: false, needsTimeOfDay: true });
    expect(parseEveryPhrase('every fortnight 09:00')).not.toHaveProperty('needsTimeOfDay');
    expect(parseEveryPhrase('every hour 09:00')).not.toHaveProperty('needsTimeOfDay');
  });
});
