import { afterEach, describe, expect, it } from 'vitest';
import { readsAsNaturalTime, resolveNaturalTime } from '../../../shared/reminders/index';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';

/** Monday 2026-11-23 17:00 UTC: 18:00 in Berlin, 12:00 in New York, 22:30 in Kolkata. */
const MONDAY = Date.parse('2026-11-23T17:00:00Z');

type Row = [text: string, now: string, zone: string, expectedText: string, instant: string];

function check([text, now, zone, expectedText, instant]: Row) {
  const result = resolveNaturalTime(text, { now: Date.parse(now), zone });
  expect(result).toMatchObject({ ok: true, text: expectedText });
  expect(result.ok && new Date(result.instant).toISOString()).toBe(instant);
}

const now = new Date(MONDAY).toISOString();
const FIXED_NOW_ROWS: Row[] = [
  // Berlin, Monday 18:00 CET
  ['tomorrow 5pm', now, BERLIN, '2026-11-24 17:00', '2026-11-24T16:00:00.000Z'],
  ['next monday at 8', now, BERLIN, '2026-11-30 08:00', '2026-11-30T07:00:00.000Z'],
  ['in 2 hours', now, BERLIN, '2026-11-23 20:00', '2026-11-23T19:00:00.000Z'],
  ['in 30 minutes', now, BERLIN, '2026-11-23 18:30', '2026-11-23T17:30:00.000Z'],
  ['friday', now, BERLIN, '2026-11-27 09:00', '2026-11-27T08:00:00.000Z'],
  ['5pm', now, BERLIN, '2026-11-24 17:00', '2026-11-24T16:00:00.000Z'],
  ['8pm', now, BERLIN, '2026-11-23 20:00', '2026-11-23T19:00:00.000Z'],
  ['tomorrow', now, BERLIN, '2026-11-24 09:00', '2026-11-24T08:00:00.000Z'],
  ['monday', now, BERLIN, '2026-11-30 09:00', '2026-11-30T08:00:00.000Z'],
  ['tonight', now, BERLIN, '2026-11-23 22:00', '2026-11-23T21:00:00.000Z'],
  ['tomorrow morning', now, BERLIN, '2026-11-24 06:00', '2026-11-24T05:00:00.000Z'],
  ['in 3 days', now, BERLIN, '2026-11-26 09:00', '2026-11-26T08:00:00.000Z'],
  ['2026-12-01', now, BERLIN, '2026-12-01 09:00', '2026-12-01T08:00:00.000Z'],
  ['dec 3 10:00', now, BERLIN, '2026-12-03 10:00', '2026-12-03T09:00:00.000Z'],
  ['Tomorrow at 5:30 PM', now, BERLIN, '2026-11-24 17:30', '2026-11-24T16:30:00.000Z'],
  ['tomorrow 5pm Europe/Berlin', now, BERLIN, '2026-11-24 17:00', '2026-11-24T16:00:00.000Z'],
  ['tomorrow 5pm europe/berlin', now, BERLIN, '2026-11-24 17:00', '2026-11-24T16:00:00.000Z'],
  [
    'tomorrow 5pm America/New_York',
    now,
    BERLIN,
    '2026-11-24 17:00 America/New_York',
    '2026-11-24T22:00:00.000Z',
  ],
  ['at noon', now, BERLIN, '2026-11-24 12:00', '2026-11-24T11:00:00.000Z'],
  ['this evening', now, BERLIN, '2026-11-23 20:00', '2026-11-23T19:00:00.000Z'],
  ['midnight', now, BERLIN, '2026-11-24 00:00', '2026-11-23T23:00:00.000Z'],
  ['jan 5', now, BERLIN, '2027-01-05 09:00', '2027-01-05T08:00:00.000Z'],
  ['in 2 weeks at 10', now, BERLIN, '2026-12-07 10:00', '2026-12-07T09:00:00.000Z'],
  // An abbreviation chrono knows fixes the instant; it is shown in the vault's zone.
  ['tomorrow 5pm EST', now, BERLIN, '2026-11-24 23:00', '2026-11-24T22:00:00.000Z'],
  // A weekday on that very day, before its time, is today.
  ['monday', '2026-11-23T06:00:00Z', BERLIN, '2026-11-23 09:00', '2026-11-23T08:00:00.000Z'],
  ['friday 5pm', '2026-11-27T17:30:00Z', BERLIN, '2026-12-04 17:00', '2026-12-04T16:00:00.000Z'],
  // New York, Monday 12:00 EST
  ['5pm', now, NEW_YORK, '2026-11-23 17:00', '2026-11-23T22:00:00.000Z'],
  ['tomorrow 9am', now, NEW_YORK, '2026-11-24 09:00', '2026-11-24T14:00:00.000Z'],
  ['in 2 hours', now, NEW_YORK, '2026-11-23 14:00', '2026-11-23T19:00:00.000Z'],
  ['friday', now, NEW_YORK, '2026-11-27 09:00', '2026-11-27T14:00:00.000Z'],
  ['next monday at 8', now, NEW_YORK, '2026-11-30 08:00', '2026-11-30T13:00:00.000Z'],
  // Kolkata, Monday 22:30 IST (UTC+05:30)
  ['5pm', now, KOLKATA, '2026-11-24 17:00', '2026-11-24T11:30:00.000Z'],
  ['11pm', now, KOLKATA, '2026-11-23 23:00', '2026-11-23T17:30:00.000Z'],
  ['in 2 hours', now, KOLKATA, '2026-11-24 00:30', '2026-11-23T19:00:00.000Z'],
  ['tomorrow', now, KOLKATA, '2026-11-24 09:00', '2026-11-24T03:30:00.000Z'],
  // Kolkata after local midnight while UTC is still on the previous day: "tomorrow" is local.
  ['tomorrow', '2026-11-23T20:00:00Z', KOLKATA, '2026-11-25 09:00', '2026-11-25T03:30:00.000Z'],
  ['today 5pm', '2026-11-23T20:00:00Z', KOLKATA, '2026-11-24 17:00', '2026-11-24T11:30:00.000Z'],
];

describe('resolveNaturalTime: a fixed now in three zones', () => {
  it.each<Row>(FIXED_NOW_ROWS)('%s at %s in %s → %s', (...row) => check(row));
});

const DST_ROWS: Row[] = [
  // Berlin springs forward 2026-03-29 02:00 CET → 03:00 CEST; now is Saturday 21:00 CET.
  ['tomorrow 9am', '2026-03-28T20:00:00Z', BERLIN, '2026-03-29 09:00', '2026-03-29T07:00:00.000Z'],
  ['in 6 hours', '2026-03-28T20:00:00Z', BERLIN, '2026-03-29 04:00', '2026-03-29T02:00:00.000Z'],
  // 02:30 does not exist that night: it moves forward by the gap (RFC 5545).
  [
    'tomorrow 2:30am',
    '2026-03-28T20:00:00Z',
    BERLIN,
    '2026-03-29 03:30',
    '2026-03-29T01:30:00.000Z',
  ],
  // Berlin falls back 2026-10-25 03:00 CEST → 02:00 CET; now is Saturday 22:00 CEST.
  ['tomorrow 9am', '2026-10-24T20:00:00Z', BERLIN, '2026-10-25 09:00', '2026-10-25T08:00:00.000Z'],
  ['in 6 hours', '2026-10-24T20:00:00Z', BERLIN, '2026-10-25 03:00', '2026-10-25T02:00:00.000Z'],
  // 02:30 happens twice: the first (CEST) is meant.
  [
    'tomorrow 2:30am',
    '2026-10-24T20:00:00Z',
    BERLIN,
    '2026-10-25 02:30',
    '2026-10-25T00:30:00.000Z',
  ],
  // New York springs forward 2026-03-08 02:00 EST → 03:00 EDT; now is Saturday 18:00 EST.
  [
    'tomorrow 9am',
    '2026-03-07T23:00:00Z',
    NEW_YORK,
    '2026-03-08 09:00',
    '2026-03-08T13:00:00.000Z',
  ],
  ['sunday at 8', '2026-03-07T23:00:00Z', NEW_YORK, '2026-03-08 08:00', '2026-03-08T12:00:00.000Z'],
  // A week later across the change, still 09:00 wall time.
  [
    'next saturday 9am',
    '2026-03-07T13:00:00Z',
    NEW_YORK,
    '2026-03-14 09:00',
    '2026-03-14T13:00:00.000Z',
  ],
];

describe('resolveNaturalTime: around daylight-saving changes', () => {
  it.each<Row>(DST_ROWS)('%s at %s in %s → %s', (...row) => check(row));
});

describe('resolveNaturalTime: errors', () => {
  const options = { now: MONDAY, zone: BERLIN };
  it.each([
    ['today', '"today" is in the past (2026-11-23 09:00)'],
    ['yesterday', '"yesterday" is in the past (2026-11-22 09:00)'],
    ['2 hours ago', '"2 hours ago" is in the past (2026-11-23 16:00)'],
    ['2025-01-01', '"2025-01-01" is in the past (2025-01-01 09:00)'],
    [
      'blah',
      '"blah" is not a time I can read (try "tomorrow 5pm", "next monday at 8" or "in 2 hours")',
    ],
    [
      'tomorrow 5pm call mum',
      '"tomorrow 5pm call mum" is not a time I can read (try "tomorrow 5pm", "next monday at 8" or "in 2 hours")',
    ],
    ['5/12', '"5/12" is ambiguous (day/month or month/day?): write 2026-12-05 or dec 5'],
    [
      '05.12.2026 10:00',
      '"05.12.2026" is ambiguous (day/month or month/day?): write 2026-12-05 or dec 5',
    ],
    ['', 'no time given'],
    ['   ', 'no time given'],
    [
      'tomorrow 5pm Mars/Base',
      'unknown time zone "Mars/Base" (use an IANA name like Europe/Berlin)',
    ],
    ['tomorrow 5-6pm', '"tomorrow 5-6pm" is a range; a reminder needs one time'],
    ['x'.repeat(201), 'time text is too long (at most 200 characters)'],
  ])('%j: %s', (text, message) => {
    expect(resolveNaturalTime(text, options)).toEqual({ ok: false, message });
  });

  it('checks its options', () => {
    expect(resolveNaturalTime('tomorrow', { now: Number.NaN, zone: BERLIN })).toEqual({
      ok: false,
      message: '"now" is not a valid instant',
    });
    expect(resolveNaturalTime('tomorrow', { now: MONDAY, zone: 'Nowhere' })).toEqual({
      ok: false,
      message: 'unknown time zone "Nowhere"',
    });
    expect(resolveNaturalTime('tomorrow', { ...options, defaultTime: '9am' })).toEqual({
      ok: false,
      message: 'default time "9am" is not HH:mm',
    });
    expect(resolveNaturalTime(42 as unknown as string, options)).toEqual({
      ok: false,
      message: 'a time must be text',
    });
  });

  it('uses the given default time for date-only phrases', () => {
    expect(resolveNaturalTime('tomorrow', { ...options, defaultTime: '07:30' })).toMatchObject({
      ok: true,
      text: '2026-11-24 07:30',
    });
  });

  it('never throws on random text', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = [
      'tomorrow',
      'in',
      '2',
      'hours',
      'at',
      '5pm',
      'next',
      'monday',
      '\u0000',
      ':',
      '-',
      '(',
      '99',
    ];
    for (let round = 0; round < 200; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 6) },
        () => words[Math.floor(random() * words.length)],
      ).join(' ');
      const result = resolveNaturalTime(text, options);
      if (result.ok) expect(result.instant).toBeGreaterThan(MONDAY);
    }
  });
});

describe('resolveNaturalTime does not depend on the process time zone', () => {
  const original = process.env.TZ;
  afterEach(() => {
    process.env.TZ = original;
  });

  // chrono works in process-local time; with a fixed-offset reference, weekdays ("monday",
  // "friday 5pm") came out differently under Pacific/Auckland and Asia/Kolkata.
  it.each(['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Auckland', 'Pacific/Chatham'])(
    'every table row gives the same answer under TZ=%s',
    (tz) => {
      process.env.TZ = tz;
      for (const row of [...FIXED_NOW_ROWS, ...DST_ROWS]) check(row);
    },
  );
});

describe('readsAsNaturalTime', () => {
  it.each([
    ['tomorrow 5pm', true],
    ['in 2 hours', true],
    ['tomorrow 5pm Asia/Kolkata', true],
    ['tomorrow 5pm call mum', false],
    ['', false],
    ['blah', false],
  ])('%j → %s', (text, expected) => {
    expect(readsAsNaturalTime(text)).toBe(expected);
  });
});
