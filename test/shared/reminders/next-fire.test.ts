import { describe, expect, it } from 'vitest';
import {
  checkSchedule,
  classifyRemindText,
  describeNextFire,
  formatInZone,
  nextFire,
} from '../../../shared/reminders/index';
import type { ReminderFireState, ReminderSchedule } from '../../../shared/reminders/index';

const active: ReminderFireState = { status: 'active', taskState: 'none' };
const at = (iso: string) => Date.parse(iso);

/** The schedule an inline token gives. */
function inline(text: string, zone = 'Europe/Berlin'): ReminderSchedule {
  const value = classifyRemindText(text, zone);
  if (value.kind === 'once') return { kind: 'once', start: value.start, zone: value.zone };
  if (value.kind === 'recurring') {
    return { kind: 'recurring', rrule: value.rrule, start: value.start, zone: value.zone };
  }
  throw new Error(`not schedulable: ${text}`);
}

/** The next `n` fires in the schedule's zone, each after the previous. */
function fires(schedule: ReminderSchedule, from: string, n: number): string[] {
  const result: string[] = [];
  let after = at(from);
  for (let index = 0; index < n; index++) {
    const next = nextFire(schedule, active, after);
    if (next === null) break;
    result.push(formatInZone(next, schedule.zone));
    after = next;
  }
  return result;
}

describe('nextFire: one-off', () => {
  const once = inline('2026-11-23 17:00');

  it('fires once at its wall time in its zone, after is exclusive', () => {
    expect(nextFire(once, active, at('2026-11-23T10:00:00Z'))).toBe(at('2026-11-23T16:00:00Z'));
    expect(nextFire(once, active, at('2026-11-23T16:00:00Z'))).toBeNull();
    expect(nextFire(once, active, at('2026-11-23T15:59:59Z'))).toBe(at('2026-11-23T16:00:00Z'));
  });

  it('never fires when done, cancelled or checked', () => {
    const before = at('2026-11-01T00:00:00Z');
    expect(nextFire(once, { status: 'done', taskState: 'none' }, before)).toBeNull();
    expect(nextFire(once, { status: 'cancelled', taskState: 'none' }, before)).toBeNull();
    expect(nextFire(once, { status: 'active', taskState: 'checked' }, before)).toBeNull();
    expect(nextFire(once, { status: 'active', taskState: 'open' }, before)).toBe(
      at('2026-11-23T16:00:00Z'),
    );
  });

  it('a snooze replaces the time of a one-off', () => {
    const snoozed = { ...active, snoozedUntil: at('2026-11-23T16:15:00Z') };
    expect(nextFire(once, snoozed, at('2026-11-23T16:00:00Z'))).toBe(at('2026-11-23T16:15:00Z'));
    expect(nextFire(once, snoozed, at('2026-11-23T16:15:00Z'))).toBeNull();
  });

  it('a wall time in the spring-forward gap fires after the gap', () => {
    expect(formatInZone(nextFire(inline('2026-03-29 02:30'), active, 0)!, 'Europe/Berlin')).toBe(
      '2026-03-29T03:30:00+02:00',
    );
  });
});

describe('nextFire: recurring keeps wall time across DST', () => {
  it('every monday 09:00 in Berlin across the October change', () => {
    expect(fires(inline('every monday 09:00'), '2026-10-15T00:00:00Z', 3)).toEqual([
      '2026-10-19T09:00:00+02:00',
      '2026-10-26T09:00:00+01:00',
      '2026-11-02T09:00:00+01:00',
    ]);
  });

  it('every day 09:00 in New York across the March change', () => {
    expect(fires(inline('every day 09:00', 'America/New_York'), '2026-03-06T15:00:00Z', 3)).toEqual(
      ['2026-03-07T09:00:00-05:00', '2026-03-08T09:00:00-04:00', '2026-03-09T09:00:00-04:00'],
    );
  });

  it('every day 02:30 in Berlin on the spring-forward night fires at 03:30', () => {
    expect(fires(inline('every day 02:30'), '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T02:30:00+01:00',
      '2026-03-29T03:30:00+02:00',
      '2026-03-30T02:30:00+02:00',
    ]);
  });

  it('an Asia/Kolkata rule (no DST, half-hour offset)', () => {
    expect(fires(inline('every weekday 08:30 Asia/Kolkata'), '2026-11-20T00:00:00Z', 2)).toEqual([
      '2026-11-20T08:30:00+05:30',
      '2026-11-23T08:30:00+05:30',
    ]);
  });

  it('every 2 weeks counts from the fixed inline anchor, the same for every reader', () => {
    const schedule = inline('every 2 weeks on monday 09:00');
    const first = fires(schedule, '2026-11-20T00:00:00Z', 2);
    expect(fires(schedule, '2026-11-21T00:00:00Z', 2)).toEqual(first);
    // 2000-01-03 is a Monday; 2026-11-23 is 1403 weeks later, an odd number.
    expect(first).toEqual(['2026-11-30T09:00:00+01:00', '2026-12-14T09:00:00+01:00']);
  });

  it('a reminder note with DTSTART and COUNT ends', () => {
    const schedule: ReminderSchedule = {
      kind: 'recurring',
      rrule: 'FREQ=DAILY;COUNT=2',
      start: '2026-11-23T17:00',
      zone: 'Europe/Berlin',
    };
    expect(fires(schedule, '2026-11-01T00:00:00Z', 5)).toEqual([
      '2026-11-23T17:00:00+01:00',
      '2026-11-24T17:00:00+01:00',
    ]);
  });

  it('an UNTIL in the past means no next fire', () => {
    expect(
      nextFire(
        inline('RRULE:FREQ=DAILY;BYHOUR=9;UNTIL=20200101T000000Z'),
        active,
        at('2026-01-01T00:00:00Z'),
      ),
    ).toBeNull();
  });

  it('a pending snooze fires before the next occurrence, and not after it passed', () => {
    const schedule = inline('every monday 09:00');
    const after = at('2026-11-23T08:05:00Z');
    const snoozed = { ...active, snoozedUntil: at('2026-11-23T08:20:00Z') };
    expect(nextFire(schedule, snoozed, after)).toBe(at('2026-11-23T08:20:00Z'));
    expect(nextFire(schedule, snoozed, at('2026-11-23T08:20:00Z'))).toBe(
      at('2026-11-30T08:00:00Z'),
    );
    expect(nextFire(schedule, { ...active, taskState: 'checked' }, after)).toBeNull();
  });
});

describe('nextFire: snoozes of recurring reminders', () => {
  it('a snooze past later occurrences replaces them (as the companion scheduler does)', () => {
    const daily = inline('every day 09:00');
    const snoozed = { ...active, snoozedUntil: at('2026-11-25T12:00:00Z') };
    const after = at('2026-11-23T08:05:00Z');
    expect(nextFire(daily, snoozed, after)).toBe(at('2026-11-25T12:00:00Z'));
    expect(nextFire(daily, snoozed, at('2026-11-25T12:00:00Z'))).toBe(at('2026-11-26T08:00:00Z'));
  });
});

describe('checkSchedule', () => {
  it.each<[ReminderSchedule, string | undefined]>([
    [{ kind: 'once', start: '2026-11-23T17:00', zone: 'Europe/Berlin' }, undefined],
    [{ kind: 'once', start: '2026-11-23T17:00', zone: 'Nowhere' }, 'unknown time zone "Nowhere"'],
    [
      { kind: 'once', start: '2026-02-30T17:00', zone: 'UTC' },
      '"2026-02-30T17:00": 2026-02 has no day 30',
    ],
    [
      { kind: 'recurring', rrule: 'FREQ=SOMETIMES', start: '2026-11-23T17:00', zone: 'UTC' },
      expect.stringContaining('FREQ') as unknown as string,
    ],
  ])('%j', (schedule, message) => {
    expect(checkSchedule(schedule)).toEqual(message);
  });
});

describe('describeNextFire', () => {
  // Monday 2026-11-23 10:00 in Berlin.
  const now = at('2026-11-23T09:00:00Z');
  it.each([
    ['2026-11-23T16:00:00Z', 'Europe/Berlin', 'today 17:00'],
    ['2026-11-23T22:59:00Z', 'Europe/Berlin', 'today 23:59'],
    ['2026-11-23T23:00:00Z', 'Europe/Berlin', 'tomorrow 00:00'],
    ['2026-11-24T08:00:00Z', 'Europe/Berlin', 'tomorrow 09:00'],
    ['2026-11-22T16:00:00Z', 'Europe/Berlin', 'yesterday 17:00'],
    ['2026-11-25T08:00:00Z', 'Europe/Berlin', 'Wed 09:00'],
    ['2026-11-29T08:00:00Z', 'Europe/Berlin', 'Sun 09:00'],
    ['2026-11-30T08:00:00Z', 'Europe/Berlin', 'Mon 30 Nov 09:00'],
    ['2026-11-20T08:00:00Z', 'Europe/Berlin', 'Fri 20 Nov 09:00'],
    ['2027-01-10T08:00:00Z', 'Europe/Berlin', 'Sun 10 Jan 2027 09:00'],
    // The day boundary is the zone's: 02:00 Tuesday in Kolkata is "tomorrow" there.
    ['2026-11-23T20:30:00Z', 'Asia/Kolkata', 'tomorrow 02:00'],
    ['2026-11-24T03:00:00Z', 'America/New_York', 'today 22:00'],
  ])('%s in %s → %s', (instant, zone, text) => {
    expect(describeNextFire(at(instant), zone, now)).toBe(text);
  });
});
