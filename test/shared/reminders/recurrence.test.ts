import { describe, expect, it } from 'vitest';
import { formatInZone } from '../../../shared/reminders/local-time';
import {
  MAX_OCCURRENCES,
  RecurrenceInputError,
  nextOccurrences,
  occurrencesBetween,
  previousOccurrence,
  validateRrule,
} from '../../../shared/reminders/recurrence';

const BERLIN = 'Europe/Berlin';

function localDates(instants: number[], zone = BERLIN): string[] {
  return instants.map((instant) => formatInZone(instant, zone).slice(0, 16));
}

describe('validateRrule', () => {
  it.each([
    ['RRULE:FREQ=WEEKLY;BYDAY=MO', 'FREQ=WEEKLY;BYDAY=MO'],
    ['rrule:freq=daily;interval=1', 'FREQ=DAILY'],
    ['  FREQ=DAILY;  ', 'FREQ=DAILY'],
    ['BYDAY=MO;INTERVAL=2;FREQ=WEEKLY', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO'],
    ['FREQ=WEEKLY;WKST=MO;BYDAY=MO', 'FREQ=WEEKLY;BYDAY=MO'],
    ['FREQ=WEEKLY;INTERVAL=2;WKST=SU', 'FREQ=WEEKLY;INTERVAL=2;WKST=SU'],
    ['FREQ=MONTHLY;BYDAY=-1FR,+2MO', 'FREQ=MONTHLY;BYDAY=-1FR,2MO'],
    ['FREQ=DAILY;BYHOUR=09;BYMINUTE=05;BYSECOND=00', 'FREQ=DAILY;BYHOUR=9;BYMINUTE=5;BYSECOND=0'],
    ['FREQ=DAILY;UNTIL=20261231T230000Z', 'FREQ=DAILY;UNTIL=20261231T230000Z'],
    ['FREQ=DAILY;UNTIL=20261231', 'FREQ=DAILY;UNTIL=20261231'],
    ['FREQ=DAILY;COUNT=100000', 'FREQ=DAILY;COUNT=100000'],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29'],
    ['FREQ=YEARLY;BYYEARDAY=366', 'FREQ=YEARLY;BYYEARDAY=366'],
    ['FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO', 'FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO'],
    ['FREQ=MONTHLY;BYDAY=5FR', 'FREQ=MONTHLY;BYDAY=5FR'],
    [
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
      'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    ],
  ])('accepts %j as %j', (input, normalised) => {
    expect(validateRrule(input)).toEqual({ ok: true, rrule: normalised });
  });

  it.each([
    ['', 'RRULE is empty'],
    ['RRULE:', 'RRULE is empty'],
    ['BYDAY=MO', 'FREQ is missing'],
    ['FREQ=FORTNIGHTLY', 'FREQ: "FORTNIGHTLY" is not one of'],
    ['FREQ=SECONDLY', 'FREQ: SECONDLY is not supported'],
    ['FREQ=WEEKLY;BYDAY=XX', 'BYDAY: "XX" is not a weekday'],
    ['FREQ=WEEKLY;BYDAY=MO,,TU', 'BYDAY: "" is not a weekday'],
    ['FREQ=MONTHLY;BYDAY=0MO', 'BYDAY: "0MO": the ordinal must be'],
    ['FREQ=MONTHLY;BYDAY=54MO', 'BYDAY: "54MO": the ordinal must be'],
    ['FREQ=DAILY;INTERVAL=0', 'INTERVAL: "0" must be a whole number'],
    ['FREQ=DAILY;INTERVAL=1.5', 'INTERVAL: "1.5" must be a whole number'],
    ['FREQ=DAILY;INTERVAL=1001', 'INTERVAL: "1001" must be a whole number'],
    ['FREQ=DAILY;COUNT=-1', 'COUNT: "-1" must be a whole number'],
    ['FREQ=DAILY;COUNT=0', 'COUNT: "0" must be a whole number'],
    ['FREQ=DAILY;COUNT=100001', 'COUNT: "100001" must be a whole number from 1 to 100000'],
    ['FREQ=DAILY;COUNT=5;UNTIL=20270101T000000Z', 'COUNT and UNTIL cannot both be set'],
    ['FREQ=DAILY;UNTIL=20260230', 'UNTIL: "20260230" is not a date'],
    ['FREQ=DAILY;UNTIL=tomorrow', 'UNTIL: "TOMORROW" is not a date'],
    ['FREQ=DAILY;UNTIL=20261231T250000Z', 'UNTIL: "20261231T250000Z" is not a date'],
    ['FREQ=DAILY;FOO=1', 'unknown part "FOO"'],
    ['FREQ=DAILY;X-NAME=1', 'unknown part "X-NAME"'],
    ['FREQ=DAILY;FREQ=WEEKLY', 'FREQ is given twice'],
    ['FREQ=DAILY;INTERVAL', '"INTERVAL" is not a NAME=VALUE part'],
    ['FREQ=DAILY;INTERVAL=', 'INTERVAL has no value'],
    ['DTSTART:19970902T090000\nRRULE:FREQ=DAILY', 'DTSTART and TZID do not belong in the rule'],
    ['FREQ=DAILY;DTSTART=19970902T090000', 'DTSTART and TZID do not belong in the rule'],
    ['RRULE;TZID=Europe/Berlin:FREQ=DAILY', 'DTSTART and TZID do not belong in the rule'],
    ['FREQ=DAILY\nFREQ=WEEKLY', 'RRULE must be a single line'],
    [
      'FREQ=MONTHLY;BYMONTHDAY=32',
      'BYMONTHDAY: "32" is not a day of the month (1 to 31 or -31 to -1)',
    ],
    ['FREQ=MONTHLY;BYMONTHDAY=0', 'BYMONTHDAY: "0" is not a day of the month'],
    ['FREQ=YEARLY;BYMONTH=13', 'BYMONTH: "13" is not a month (1 to 12)'],
    ['FREQ=YEARLY;BYMONTH=-1', 'BYMONTH: "-1" is not a month'],
    ['FREQ=DAILY;BYHOUR=24', 'BYHOUR: "24" is not an hour (0 to 23)'],
    ['FREQ=DAILY;BYMINUTE=60', 'BYMINUTE: "60" is not a minute (0 to 59)'],
    ['FREQ=DAILY;BYSECOND=30', 'BYSECOND: "30" is not a second (reminders have minute resolution'],
    ['FREQ=YEARLY;BYYEARDAY=367', 'BYYEARDAY: "367" is not a day of the year'],
    ['FREQ=YEARLY;BYWEEKNO=54', 'BYWEEKNO: "54" is not a week number'],
    ['FREQ=MONTHLY;BYSETPOS=1;BYDAY=MO,TU;BYSETPOS=2', 'BYSETPOS is given twice'],
    ['FREQ=WEEKLY;WKST=XY', 'WKST: "XY" is not a weekday'],
    ['FREQ=MONTHLY;BYWEEKNO=20', 'BYWEEKNO only applies to FREQ=YEARLY, not MONTHLY'],
    ['FREQ=DAILY;BYYEARDAY=100', 'BYYEARDAY does not apply to FREQ=DAILY'],
    ['FREQ=WEEKLY;BYMONTHDAY=1', 'BYMONTHDAY does not apply to FREQ=WEEKLY'],
    ['FREQ=WEEKLY;BYDAY=1MO', 'BYDAY: "1MO": an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY'],
    [
      'FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO',
      'BYDAY: "1MO": an ordinal weekday cannot be combined with BYWEEKNO',
    ],
    ['FREQ=MONTHLY;BYSETPOS=1', 'BYSETPOS needs another BY part'],
    [`FREQ=DAILY;BYMINUTE=${'1,'.repeat(300)}2`, 'RRULE is too long (621 characters, at most 512)'],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', 'RRULE never occurs'],
    ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30,31', 'RRULE never occurs'],
    ['FREQ=MONTHLY;BYMONTH=4,6,9,11;BYMONTHDAY=31', 'RRULE never occurs'],
    ['FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6', 'RRULE never occurs'],
    ['FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30', 'RRULE never occurs'],
    ['FREQ=YEARLY;BYMONTH=2;BYDAY=5MO;BYMONTHDAY=1,2,3', 'RRULE never occurs'],
  ])('rejects %j: %s', (input, message) => {
    const result = validateRrule(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });

  it('never throws, whatever it is given', () => {
    for (const input of [undefined, null, 42, {}, 'FREQ=;;;', '=', ';', 'RRULE:RRULE:FREQ=DAILY']) {
      expect(() => validateRrule(input as unknown as string)).not.toThrow();
      expect(validateRrule(input as unknown as string).ok).toBe(false);
    }
  });
});

describe('nextOccurrences', () => {
  it('is exclusive of `after` and strictly increasing', () => {
    const rule = { rrule: 'FREQ=DAILY', start: '2026-01-01T09:00' };
    const [first, second] = nextOccurrences(rule, 0, BERLIN, 2);
    expect(nextOccurrences(rule, first!, BERLIN, 1)).toEqual([second]);
    expect(nextOccurrences(rule, first! - 1, BERLIN, 1)).toEqual([first]);
  });

  it('counts the start as the first occurrence even when the rule would not produce it', () => {
    // 2026-01-07 is a Wednesday; the rule wants Mondays.
    const rule = { rrule: 'FREQ=WEEKLY;BYDAY=MO;COUNT=3', start: '2026-01-07T09:00' };
    expect(localDates(nextOccurrences(rule, 0, BERLIN, 10))).toEqual([
      '2026-01-07T09:00',
      '2026-01-12T09:00',
      '2026-01-19T09:00',
    ]);
  });

  it('monthly on the 31st skips the short months (RFC 5545: invalid dates are ignored)', () => {
    const expected = ['01', '03', '05', '07', '08', '10', '12'].map((m) => `2026-${m}-31T09:00`);
    for (const rrule of ['FREQ=MONTHLY;BYMONTHDAY=31', 'FREQ=MONTHLY']) {
      const occurrences = nextOccurrences({ rrule, start: '2026-01-31T09:00' }, 0, BERLIN, 7);
      expect(localDates(occurrences)).toEqual(expected);
    }
  });

  it('monthly on the last day uses BYMONTHDAY=-1', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MONTHLY;BYMONTHDAY=-1', start: '2028-01-31T09:00' },
      0,
      BERLIN,
      3,
    );
    expect(localDates(occurrences)).toEqual([
      '2028-01-31T09:00',
      '2028-02-29T09:00',
      '2028-03-31T09:00',
    ]);
  });

  it('29 February comes every leap year, skipping 2100', () => {
    const rrule = 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29';
    expect(localDates(nextOccurrences({ rrule, start: '2024-02-29T09:00' }, 0, BERLIN, 4))).toEqual(
      ['2024-02-29T09:00', '2028-02-29T09:00', '2032-02-29T09:00', '2036-02-29T09:00'],
    );
    expect(localDates(nextOccurrences({ rrule, start: '2096-02-29T09:00' }, 0, BERLIN, 2))).toEqual(
      ['2096-02-29T09:00', '2104-02-29T09:00'],
    );
  });

  it('a yearly rule started on 29 February without BY parts follows RFC 5545: leap years only', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=YEARLY', start: '2024-02-29T09:00' },
      0,
      BERLIN,
      2,
    );
    expect(localDates(occurrences)).toEqual(['2024-02-29T09:00', '2028-02-29T09:00']);
  });

  it.each([
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', '2026-01-01T09:00'],
    ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', '2026-01-01T09:00'],
    ['FREQ=MINUTELY;BYMONTH=4;BYMONTHDAY=31', '2026-01-01T09:00'],
    // Never on a leap year from an odd start: the `rrule` package scans these to 9999.
    ['FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29', '2027-01-01T09:00'],
    // Hours 0, 6, 12, 18 only: the `rrule` package loops forever on this one.
    ['FREQ=HOURLY;INTERVAL=6;BYHOUR=3', '2026-01-01T00:00'],
    ['FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1', '2026-01-01T00:00'],
  ])(
    'a rule that never occurs after its start (%s) ends with nothing, promptly',
    (rrule, start) => {
      const after = Date.UTC(2027, 0, 2);
      expect(nextOccurrences({ rrule, start }, after, BERLIN, 10)).toEqual([]);
    },
  );

  it('keeps MINUTELY intervals on their lattice when BYHOUR filters (INTERVAL=90: 09:00 only)', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;INTERVAL=90;BYHOUR=9', start: '2026-01-05T09:00' },
      0,
      BERLIN,
      3,
    );
    expect(localDates(occurrences)).toEqual([
      '2026-01-05T09:00',
      '2026-01-06T09:00',
      '2026-01-07T09:00',
    ]);
  });

  it('COUNT=100000 gives the first ten quickly', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;COUNT=100000', start: '2026-01-01T00:00' },
      0,
      BERLIN,
      10,
    );
    expect(localDates(occurrences).at(-1)).toBe('2026-01-01T00:09');
  });

  it('COUNT is counted from the start even when asking much later', () => {
    const rule = { rrule: 'FREQ=DAILY;COUNT=100000', start: '2026-01-01T09:00' };
    // Occurrence 100000 is on 2299-10-16 (day 99999 after the start).
    const tail = nextOccurrences(rule, Date.UTC(2299, 9, 14), BERLIN, 10);
    expect(localDates(tail)).toEqual(['2299-10-14T09:00', '2299-10-15T09:00', '2299-10-16T09:00']);
    expect(
      nextOccurrences(
        { rrule: 'FREQ=MINUTELY;COUNT=100000', start: '2026-01-01T00:00' },
        Date.UTC(2030, 0, 1),
        BERLIN,
        10,
      ),
    ).toEqual([]);
  });

  it('an UNTIL in the past ends at once', () => {
    const rule = { rrule: 'FREQ=MINUTELY;UNTIL=20200101T000000Z', start: '2019-12-31T23:00' };
    expect(nextOccurrences(rule, Date.UTC(2026, 0, 1), BERLIN, 10)).toEqual([]);
  });

  it('reads a floating UNTIL as wall time in the zone, and a date UNTIL as the whole day', () => {
    const floating = { rrule: 'FREQ=HOURLY;UNTIL=20260105T110000', start: '2026-01-05T09:00' };
    expect(localDates(nextOccurrences(floating, 0, BERLIN, 10))).toEqual([
      '2026-01-05T09:00',
      '2026-01-05T10:00',
      '2026-01-05T11:00',
    ]);
    const date = { rrule: 'FREQ=DAILY;BYHOUR=9,23;UNTIL=20260106', start: '2026-01-05T09:00' };
    expect(localDates(nextOccurrences(date, 0, BERLIN, 10))).toEqual([
      '2026-01-05T09:00',
      '2026-01-05T23:00',
      '2026-01-06T09:00',
      '2026-01-06T23:00',
    ]);
  });

  it('jumps ahead for open-ended rules: a minutely rule started ten years ago', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;INTERVAL=7', start: '2016-01-01T00:00' },
      Date.UTC(2026, 5, 1),
      'UTC',
      2,
    );
    // 2016-01-01 to 2026-06-01 is 3804 days = 5 477 760 minutes, 782 537 × 7 + 1.
    expect(localDates(occurrences, 'UTC')).toEqual(['2026-06-01T00:06', '2026-06-01T00:13']);
  });

  it('clamps n to 0…1000', () => {
    const rule = { rrule: 'FREQ=DAILY', start: '2026-01-01T09:00' };
    expect(nextOccurrences(rule, 0, BERLIN, 5000)).toHaveLength(MAX_OCCURRENCES);
    expect(nextOccurrences(rule, 0, BERLIN, 0)).toEqual([]);
    expect(nextOccurrences(rule, 0, BERLIN, -3)).toEqual([]);
    expect(nextOccurrences(rule, 0, BERLIN, 2.9)).toHaveLength(2);
  });

  it.each([
    [
      { rrule: 'FREQ=WEEKLY;BYDAY=XX', start: '2026-01-01T09:00' },
      BERLIN,
      'BYDAY: "XX" is not a weekday',
    ],
    [
      { rrule: 'FREQ=DAILY', start: '2026-02-30T09:00' },
      BERLIN,
      'start: "2026-02-30T09:00": 2026-02 has no day 30',
    ],
    [
      { rrule: 'FREQ=DAILY', start: '2026-01-01 09:00' },
      BERLIN,
      'start: "2026-01-01 09:00" is not a local date and time',
    ],
    [
      { rrule: 'FREQ=DAILY', start: '2026-01-01T09:00' },
      'Mars/Olympus',
      '"Mars/Olympus" is not an IANA time zone',
    ],
  ])('throws RecurrenceInputError naming the problem (%j in %s)', (rule, zone, message) => {
    expect(() => nextOccurrences(rule, 0, zone, 1)).toThrow(RecurrenceInputError);
    expect(() => nextOccurrences(rule, 0, zone, 1)).toThrow(message);
  });
});

describe('previousOccurrence', () => {
  const weekly = { rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0', start: '2026-01-05T09:00' };

  it('is inclusive of its bound and finds the latest occurrence before it', () => {
    const [, second, third] = nextOccurrences(weekly, 0, BERLIN, 3);
    expect(previousOccurrence(weekly, third!, BERLIN)).toBe(third);
    expect(previousOccurrence(weekly, third! - 1, BERLIN)).toBe(second);
  });

  it('looks past the start: a yearly rule from 2020 asked on 2026-01-10 answers 2025', () => {
    const yearly = { rrule: 'FREQ=YEARLY', start: '2020-01-15T09:00' };
    const latest = previousOccurrence(yearly, Date.UTC(2026, 0, 10), BERLIN);
    expect(localDates([latest!])).toEqual(['2025-01-15T09:00']);
  });

  it('is undefined before the start', () => {
    expect(previousOccurrence(weekly, Date.UTC(2026, 0, 1), BERLIN)).toBeUndefined();
  });

  it('finds an occurrence years back for a sparse rule, and the last one of a finished rule', () => {
    const leap = { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', start: '2096-02-29T09:00' };
    expect(localDates([previousOccurrence(leap, Date.UTC(2103, 11, 31), BERLIN)!])).toEqual([
      '2096-02-29T09:00',
    ]);
    const counted = { rrule: 'FREQ=DAILY;COUNT=3', start: '2026-01-01T09:00' };
    expect(localDates([previousOccurrence(counted, Date.UTC(2027, 0, 1), BERLIN)!])).toEqual([
      '2026-01-03T09:00',
    ]);
  });
});

describe('occurrencesBetween', () => {
  it('returns the occurrences in (after, through]', () => {
    const rule = { rrule: 'FREQ=DAILY', start: '2026-01-01T09:00' };
    const [first, second, third] = nextOccurrences(rule, 0, BERLIN, 3);
    expect(occurrencesBetween(rule, first!, third!, BERLIN, 10)).toEqual([second, third]);
    expect(occurrencesBetween(rule, third!, first!, BERLIN, 10)).toEqual([]);
    expect(occurrencesBetween(rule, 0, third!, BERLIN, 2)).toEqual([first, second]);
  });
});
