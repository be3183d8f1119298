// Wall time across daylight-saving changes: rules keep their local time, nonexistent times move
// forward by the gap, repeated times take their first occurrence, and results stay strictly
// increasing without duplicates. Run under several process time zones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../../shared/reminders/local-time';
import { nextOccurrences, previousOccurrence } from '../../../shared/reminders/recurrence';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';

function iso(instants: number[], zone: string): string[] {
  return instants.map((instant) => formatInZone(instant, zone));
}

function utc(instants: number[]): string[] {
  return instants.map((instant) => new Date(instant).toISOString().slice(0, 16) + 'Z');
}

function expectStrictlyIncreasing(instants: number[]): void {
  for (let i = 1; i < instants.length; i++) expect(instants[i]).toBeGreaterThan(instants[i - 1]!);
}

describe.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('under process TZ=%s', (processZone) => {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = processZone;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('weekly 09:00 in Berlin stays 09:00 local through both 2026 changes', () => {
    const rule = {
      rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      start: '2026-03-16T09:00',
    };
    const spring = nextOccurrences(rule, Date.UTC(2026, 2, 1), BERLIN, 3);
    expect(iso(spring, BERLIN)).toEqual([
      '2026-03-16T09:00:00+01:00',
      '2026-03-23T09:00:00+01:00',
      '2026-03-30T09:00:00+02:00',
    ]);
    expect(utc(spring)).toEqual(['2026-03-16T08:00Z', '2026-03-23T08:00Z', '2026-03-30T07:00Z']);

    const autumn = nextOccurrences(rule, Date.UTC(2026, 9, 13), BERLIN, 2);
    expect(iso(autumn, BERLIN)).toEqual(['2026-10-19T09:00:00+02:00', '2026-10-26T09:00:00+01:00']);
    expect(utc(autumn)).toEqual(['2026-10-19T07:00Z', '2026-10-26T08:00Z']);
  });

  it.each([
    {
      zone: NEW_YORK,
      start: '2026-03-07T02:30',
      // 02:30 on 8 March does not exist: it becomes 03:30 EDT, once.
      expected: ['2026-03-07T07:30Z', '2026-03-08T07:30Z', '2026-03-09T06:30Z'],
      local: [
        '2026-03-07T02:30:00-05:00',
        '2026-03-08T03:30:00-04:00',
        '2026-03-09T02:30:00-04:00',
      ],
    },
    {
      zone: BERLIN,
      start: '2026-03-28T02:30',
      // 02:30 on 29 March does not exist: it becomes 03:30 CEST (01:30Z), once.
      expected: ['2026-03-28T01:30Z', '2026-03-29T01:30Z', '2026-03-30T00:30Z'],
      local: [
        '2026-03-28T02:30:00+01:00',
        '2026-03-29T03:30:00+02:00',
        '2026-03-30T02:30:00+02:00',
      ],
    },
  ])(
    'daily 02:30 across spring-forward in $zone fires once, at 03:30',
    ({ zone, start, expected, local }) => {
      const occurrences = nextOccurrences({ rrule: 'FREQ=DAILY', start }, 0, zone, 3);
      expect(utc(occurrences)).toEqual(expected);
      expect(iso(occurrences, zone)).toEqual(local);
    },
  );

  it.each([
    {
      zone: NEW_YORK,
      start: '2026-10-31T01:30',
      // 01:30 happens twice on 1 November; the first (EDT, 05:30Z) is the one.
      expected: ['2026-10-31T05:30Z', '2026-11-01T05:30Z', '2026-11-02T06:30Z'],
    },
    {
      zone: BERLIN,
      start: '2026-10-24T02:30',
      expected: ['2026-10-24T00:30Z', '2026-10-25T00:30Z', '2026-10-26T01:30Z'],
    },
  ])(
    'daily in the repeated hour in $zone fires once, at the first instance',
    ({ zone, start, expected }) => {
      const occurrences = nextOccurrences({ rrule: 'FREQ=DAILY', start }, 0, zone, 3);
      expect(utc(occurrences)).toEqual(expected);
    },
  );

  it('a start that falls in the gap is itself moved forward by the gap', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=DAILY', start: '2026-03-29T02:30' },
      0,
      BERLIN,
      2,
    );
    expect(iso(occurrences, BERLIN)).toEqual([
      '2026-03-29T03:30:00+02:00',
      '2026-03-30T02:30:00+02:00',
    ]);
  });

  it('hourly through the New York fall-back night: one per wall hour, the repeated 01:00 EST skipped', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=HOURLY', start: '2026-10-31T23:00' },
      0,
      NEW_YORK,
      5,
    );
    expect(iso(occurrences, NEW_YORK)).toEqual([
      '2026-10-31T23:00:00-04:00',
      '2026-11-01T00:00:00-04:00',
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T02:00:00-05:00',
      '2026-11-01T03:00:00-05:00',
    ]);
    expect(utc(occurrences)).not.toContain('2026-11-01T06:00Z');
    expectStrictlyIncreasing(occurrences);
  });

  it('hourly through the New York spring-forward night: 02:00 merges into 03:00, no duplicate', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=HOURLY', start: '2026-03-08T00:00' },
      0,
      NEW_YORK,
      4,
    );
    expect(utc(occurrences)).toEqual([
      '2026-03-08T05:00Z',
      '2026-03-08T06:00Z',
      '2026-03-08T07:00Z',
      '2026-03-08T08:00Z',
    ]);
  });

  it('every 15 minutes through the Berlin gap: real time keeps a 15-minute beat, sorted and unique', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;INTERVAL=15', start: '2026-03-29T01:30' },
      0,
      BERLIN,
      8,
    );
    expect(utc(occurrences)).toEqual([
      '2026-03-29T00:30Z',
      '2026-03-29T00:45Z',
      '2026-03-29T01:00Z',
      '2026-03-29T01:15Z',
      '2026-03-29T01:30Z',
      '2026-03-29T01:45Z',
      '2026-03-29T02:00Z',
      '2026-03-29T02:15Z',
    ]);
  });

  it('every 15 minutes through the Berlin repeated hour: no duplicates, the second pass skipped', () => {
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;INTERVAL=15', start: '2026-10-25T02:30' },
      0,
      BERLIN,
      4,
    );
    expect(iso(occurrences, BERLIN)).toEqual([
      '2026-10-25T02:30:00+02:00',
      '2026-10-25T02:45:00+02:00',
      '2026-10-25T03:00:00+01:00',
      '2026-10-25T03:15:00+01:00',
    ]);
  });

  it('a query starting inside the shifted window still sees the gap-shifted occurrence', () => {
    // 02:45 (gap) maps to 01:45Z, after the real 03:00 CEST (01:00Z): asking from 01:30Z must
    // still return 01:45Z first, though the expander met it before 03:00 in wall order.
    const occurrences = nextOccurrences(
      { rrule: 'FREQ=MINUTELY;INTERVAL=15', start: '2026-03-29T00:00' },
      Date.UTC(2026, 2, 29, 1, 30),
      BERLIN,
      2,
    );
    expect(utc(occurrences)).toEqual(['2026-03-29T01:45Z', '2026-03-29T02:00Z']);
  });

  it('previousOccurrence finds the gap-shifted run of a daily 02:30 (missed-run catch-up)', () => {
    const rule = { rrule: 'FREQ=DAILY', start: '2026-03-01T02:30' };
    const latest = previousOccurrence(rule, Date.UTC(2026, 2, 8, 12, 0), NEW_YORK);
    expect(formatInZone(latest!, NEW_YORK)).toBe('2026-03-08T03:30:00-04:00');
  });
});
