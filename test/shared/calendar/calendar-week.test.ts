import { describe, expect, it } from 'vitest';
import {
  buildCalendarWeek,
  formatIsoWeek,
  isoWeekOfDay,
  parseIsoWeek,
  readNoteEvent,
} from '../../../shared/calendar';
import type { CalendarReminder, NoteEvent } from '../../../shared/calendar';
import { daysFromCivil } from '../../../shared/reminders/local-time';

describe('ISO weeks', () => {
  it('reads and writes weeks, with the year edges right', () => {
    const w48 = parseIsoWeek('2026-W48');
    expect(w48.monday).toBe(daysFromCivil(2026, 11, 23));
    expect(formatIsoWeek(isoWeekOfDay(daysFromCivil(2026, 11, 29)))).toBe('2026-W48');
    expect(formatIsoWeek(isoWeekOfDay(daysFromCivil(2027, 1, 1)))).toBe('2026-W53');
    expect(formatIsoWeek(isoWeekOfDay(daysFromCivil(2024, 12, 30)))).toBe('2025-W01');
    expect(() => parseIsoWeek('2025-W53')).toThrow(/2025 has weeks 01 to 52/);
    expect(() => parseIsoWeek('2026-48')).toThrow(/not an ISO week/);
  });
});

describe('readNoteEvent', () => {
  const read = (data: Record<string, unknown>) =>
    readNoteEvent(data, 'Cal/Dentist.md', 'Europe/Berlin');
  it('ignores notes without calendar keys, reads Full Calendar front matter', () => {
    expect(read({ title: 'x' })).toBeUndefined();
    expect(
      read({ title: 'Dentist', date: '2026-11-24', startTime: '14:00', endTime: '15:00' }),
    ).toEqual({
      event: {
        id: 'Cal/Dentist.md',
        title: 'Dentist',
        path: 'Cal/Dentist.md',
        allDay: false,
        zone: 'Europe/Berlin',
        repeat: { kind: 'single', date: '2026-11-24', endDate: null },
        startTime: '14:00',
        endTime: '15:00',
      },
    });
    expect(
      read({
        type: 'recurring',
        daysOfWeek: ['M', 'W'],
        startTime: '9:00',
        startRecur: '2026-11-01',
      }),
    ).toMatchObject({
      event: {
        repeat: { kind: 'weekly', days: [0, 2], startRecur: '2026-11-01', endRecur: null },
        startTime: '09:00',
      },
    });
  });
  it('names the file and field of bad values', () => {
    expect(read({ date: '2026-11-24', startTime: '25:00' })).toEqual({
      problem: {
        path: 'Cal/Dentist.md',
        field: 'startTime',
        message: 'Cal/Dentist.md: front matter "startTime": "25:00" is not a time HH:mm',
      },
    });
    expect(read({ date: 'next tuesday', allDay: true })).toMatchObject({
      problem: { field: 'date' },
    });
    expect(read({ type: 'recurring', daysOfWeek: ['X'], allDay: true })).toMatchObject({
      problem: { field: 'daysOfWeek' },
    });
    expect(read({ date: '2026-11-24', type: 'single' })).toMatchObject({
      problem: { field: 'startTime' },
    });
    expect(read({ date: '2026-11-24' })).toBeUndefined();
  });
});

describe('buildCalendarWeek', () => {
  const reminders: CalendarReminder[] = [
    {
      id: 'r-mon',
      title: 'Standup',
      path: 'Work.md',
      line: 3,
      schedule: {
        kind: 'recurring',
        rrule: 'FREQ=WEEKLY;BYDAY=MO,TH',
        start: '2026-01-05T09:30',
        zone: 'Europe/Berlin',
      },
      status: 'active',
      taskChecked: false,
      deepLink: '',
    },
    {
      id: 'bank',
      title: 'Call the bank',
      path: 'Reminders/bank.md',
      schedule: { kind: 'once', at: Date.parse('2026-11-23T16:00:00Z'), zone: 'Europe/Berlin' },
      status: 'done',
      taskChecked: false,
      deepLink: '',
    },
    {
      id: 'gone',
      title: 'Cancelled',
      path: 'Reminders/gone.md',
      schedule: { kind: 'once', at: Date.parse('2026-11-24T16:00:00Z'), zone: 'Europe/Berlin' },
      status: 'cancelled',
      taskChecked: false,
      deepLink: '',
    },
  ];
  const events: NoteEvent[] = [
    {
      id: 'holiday',
      title: 'Holiday',
      path: 'Cal/Holiday.md',
      allDay: true,
      zone: 'Europe/Berlin',
      repeat: { kind: 'single', date: '2026-11-29', endDate: null },
      startTime: null,
      endTime: null,
    },
  ];

  it('lays out the contract: seven days, items with offsets, statuses', () => {
    const missedAt = Date.parse('2026-11-26T08:30:00Z');
    const week = buildCalendarWeek({
      week: parseIsoWeek('2026-W48'),
      zone: 'Europe/Berlin',
      reminders,
      events,
      isMissed: (id, at) => id === 'r-mon' && at === missedAt,
    });
    expect(week).toMatchObject({
      week: '2026-W48',
      start: '2026-11-23',
      end: '2026-11-29',
      timezone: 'Europe/Berlin',
    });
    expect(week.days.map((day) => day.date)).toEqual([
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
    ]);
    expect(week.days[0]!.items).toEqual([
      {
        kind: 'reminder',
        id: 'r-mon',
        title: 'Standup',
        start: '2026-11-23T09:30:00+01:00',
        end: null,
        all_day: false,
        path: 'Work.md',
        line: 3,
        status: 'active',
        recurring: true,
      },
      {
        kind: 'reminder',
        id: 'bank',
        title: 'Call the bank',
        start: '2026-11-23T17:00:00+01:00',
        end: null,
        all_day: false,
        path: 'Reminders/bank.md',
        line: null,
        status: 'done',
        recurring: false,
      },
    ]);
    expect(week.days[1]!.items).toEqual([]);
    expect(week.days[3]!.items[0]).toMatchObject({ id: 'r-mon', status: 'missed' });
    expect(week.days[6]!.items).toEqual([
      {
        kind: 'event',
        id: 'holiday',
        title: 'Holiday',
        start: '2026-11-29T00:00:00+01:00',
        end: '2026-11-30T00:00:00+01:00',
        all_day: true,
        path: 'Cal/Holiday.md',
        line: null,
        status: null,
        recurring: false,
      },
    ]);
  });

  it('puts an occurrence on its day in the week zone, across the DST change', () => {
    const week = buildCalendarWeek({
      week: parseIsoWeek('2026-W13'),
      zone: 'Europe/Berlin',
      reminders: reminders.slice(0, 1),
      events: [],
    });
    expect(week.days[0]!.items[0]!.start).toBe('2026-03-23T09:30:00+01:00');
    expect(week.days[3]!.items[0]!.start).toBe('2026-03-26T09:30:00+01:00');
    const next = buildCalendarWeek({
      week: parseIsoWeek('2026-W14'),
      zone: 'Europe/Berlin',
      reminders: reminders.slice(0, 1),
      events: [],
    });
    expect(next.days[0]!.items[0]!.start).toBe('2026-03-30T09:30:00+02:00');
  });
});
