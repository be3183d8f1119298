import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import type { CalendarReminder, NoteEvent } from '../../../shared/calendar/calendar-entries';
import { buildIcsFeed, escapeText, foldLine } from '../../../shared/calendar/ics-feed';
import { nextOccurrences } from '../../../shared/reminders';

/*
 * The feed is checked with a real RFC 5545 parser (ical.js): it parses, its VTIMEZONEs drive
 * the zone arithmetic, and each recurring reminder expands to exactly Cairn's own occurrences
 * (shared/reminders/recurrence.ts), across the March and October/November DST changes.
 */

const NOW = Date.parse('2026-03-20T12:00:00Z');

function reminder(
  id: string,
  schedule: CalendarReminder['schedule'],
  extra: Partial<CalendarReminder> = {},
): CalendarReminder {
  return {
    id,
    title: `Reminder ${id}`,
    path: `Reminders/${id}.md`,
    schedule,
    status: 'active',
    taskChecked: false,
    deepLink: `obsidian://open?vault=Vault&file=Reminders%2F${id}.md`,
    ...extra,
  };
}

const RECURRING: CalendarReminder[] = [
  // Weekly Monday 09:00 in Berlin, across 2026-03-29 (CET → CEST) and 2026-10-25 back.
  reminder('r-berlin', {
    kind: 'recurring',
    rrule: 'FREQ=WEEKLY;BYDAY=MO',
    start: '2026-03-02T09:00',
    zone: 'Europe/Berlin',
  }),
  // Daily 01:30 in New York, across 2026-11-01 (01:30 happens twice: the first one counts).
  reminder('r-ny', {
    kind: 'recurring',
    rrule: 'FREQ=DAILY;COUNT=20',
    start: '2026-10-25T01:30',
    zone: 'America/New_York',
  }),
  // An inline `every` rule anchored in 2000: the feed starts it within the last year.
  reminder('r-inline', {
    kind: 'recurring',
    rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=WE,FR;BYHOUR=8;BYMINUTE=15',
    start: '2000-01-03T00:00',
    zone: 'Europe/Berlin',
  }),
  // 02:30 on 2026-03-29 does not exist in Berlin: RFC 5545 says 03:30 CEST.
  reminder('r-gap', {
    kind: 'recurring',
    rrule: 'FREQ=DAILY;COUNT=5',
    start: '2026-03-27T02:30',
    zone: 'Europe/Berlin',
  }),
];

function parse(text: string): ICAL.Component {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents('vtimezone')) {
    ICAL.TimezoneService.register(new ICAL.Timezone(zone));
  }
  return calendar;
}

function expand(event: ICAL.Event, count: number): number[] {
  const iterator = event.iterator();
  const found: number[] = [];
  for (let next = iterator.next(); next && found.length < count; next = iterator.next()) {
    found.push(next.toUnixTime() * 1000);
  }
  return found;
}

describe('buildIcsFeed', () => {
  const feed = buildIcsFeed({
    reminders: [
      ...RECURRING,
      reminder(
        'r-once',
        { kind: 'once', at: Date.parse('2026-11-23T16:00:00Z'), zone: 'Europe/Berlin' },
        {
          title: 'Call the bank; ask about fees, then \\ relax',
        },
      ),
    ],
    events: [],
    now: NOW,
    vaultName: 'Vault',
    calendarName: 'Cairn',
  });
  const calendar = parse(feed);
  const events = calendar
    .getAllSubcomponents('vevent')
    .map((component) => new ICAL.Event(component));

  it('is CRLF, folded at 75 octets, with one VTIMEZONE per zone', () => {
    expect(feed.endsWith('\r\n')).toBe(true);
    expect(feed.replace(/\r\n/g, '')).not.toMatch(/\n|\r/);
    for (const line of feed.split('\r\n'))
      expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    expect(
      calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid')),
    ).toEqual(['America/New_York', 'Europe/Berlin']);
  });

  it('writes UID, DTSTART in the zone, VALARM at the start, URL and escaped text', () => {
    const once = events.find((event) => event.uid === 'r-once')!;
    expect(once.summary).toBe('Call the bank; ask about fees, then \\ relax');
    expect(once.startDate.zone.tzid).toBe('Europe/Berlin');
    expect(once.startDate.toUnixTime() * 1000).toBe(Date.parse('2026-11-23T16:00:00Z'));
    const alarm = once.component.getFirstSubcomponent('valarm')!;
    expect(alarm.getFirstPropertyValue('trigger')!.toString()).toBe('PT0S');
    expect(once.component.getFirstPropertyValue('url')).toBe(
      'obsidian://open?vault=Vault&file=Reminders%2Fr-once.md',
    );
    expect(once.component.getFirstPropertyValue('dtstamp')!.toString()).toBe(
      '2026-03-20T12:00:00Z',
    );
  });

  it.each(RECURRING.map((r) => [r.id, r] as const))(
    'expands %s exactly as Cairn does',
    (_, source) => {
      const event = events.find((candidate) => candidate.uid === source.id)!;
      expect(event.isRecurring()).toBe(true);
      const schedule = source.schedule as Extract<
        CalendarReminder['schedule'],
        { kind: 'recurring' }
      >;
      const fromIcal = expand(event, 40);
      const first = fromIcal[0]!;
      const cairn = [
        first,
        ...nextOccurrences(schedule, first, schedule.zone, fromIcal.length - 1),
      ];
      expect(fromIcal.map((ms) => new Date(ms).toISOString())).toEqual(
        cairn.map((ms) => new Date(ms).toISOString()),
      );
      // The first listed is Cairn's own first occurrence after the feed's history window.
      expect(nextOccurrences(schedule, first - 1, schedule.zone, 1)[0]).toBe(first);
    },
  );

  it('keeps wall time across the change: Berlin Mondays stay 09:00 local', () => {
    const event = events.find((candidate) => candidate.uid === 'r-berlin')!;
    const times = expand(event, 6).map((ms) => new Date(ms).toISOString());
    expect(times).toContain('2026-03-23T08:00:00.000Z');
    expect(times).toContain('2026-03-30T07:00:00.000Z');
    const gap = expand(
      events.find((candidate) => candidate.uid === 'r-gap')!,
      5,
    );
    expect(new Date(gap[2]!).toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });
});

describe('done and cancelled reminders', () => {
  const once = (id: string, extra: Partial<CalendarReminder>) =>
    reminder(
      id,
      { kind: 'once', at: Date.parse('2026-11-23T16:00:00Z'), zone: 'Europe/Berlin' },
      extra,
    );
  const line = (checked: boolean) =>
    once(
      `Journal/2026-11-22.md::- [${checked ? 'x' : ' '}] Call the bank @remind(2026-11-23 17:00)`,
      {
        path: 'Journal/2026-11-22.md',
        line: 3,
        taskChecked: checked,
      },
    );
  const feedOf = (reminders: CalendarReminder[]) =>
    parse(
      buildIcsFeed({ reminders, events: [], now: NOW, vaultName: 'Vault', calendarName: 'Cairn' }),
    )
      .getAllSubcomponents('vevent')
      .map((component) => new ICAL.Event(component));

  it('marks them with RFC 5545 STATUS and gives them no alarm; active ones keep theirs', () => {
    const events = feedOf([
      once('r-active', {}),
      once('r-done', { status: 'done' }),
      once('r-checked', { taskChecked: true }),
      once('r-cancelled', { status: 'cancelled' }),
      reminder(
        'r-series-done',
        {
          kind: 'recurring',
          rrule: 'FREQ=WEEKLY;BYDAY=MO',
          start: '2026-03-02T09:00',
          zone: 'UTC',
        },
        { status: 'done' },
      ),
    ]);
    const byUid = new Map(events.map((event) => [event.uid, event]));
    const status = (uid: string) => byUid.get(uid)!.component.getFirstPropertyValue('status');
    const alarms = (uid: string) => byUid.get(uid)!.component.getAllSubcomponents('valarm').length;
    expect(status('r-active')).toBe('CONFIRMED');
    expect(alarms('r-active')).toBe(1);
    for (const uid of ['r-done', 'r-checked', 'r-series-done']) {
      expect(status(uid)).toBe('CONFIRMED');
      expect(byUid.get(uid)!.component.getFirstPropertyValue('x-cairn-status')).toBe('DONE');
      expect(alarms(uid)).toBe(0);
    }
    expect(status('r-cancelled')).toBe('CANCELLED');
    expect(alarms('r-cancelled')).toBe(0);
    // ical.js reads every STATUS as one of RFC 5545's VEVENT values.
    for (const event of events) {
      expect(['TENTATIVE', 'CONFIRMED', 'CANCELLED']).toContain(
        event.component.getFirstPropertyValue('status'),
      );
    }
  });

  it('a line without a block id keeps its UID when it is checked off, and it is an address', () => {
    const [open] = feedOf([line(false)]);
    const [checked] = feedOf([line(true)]);
    expect(open!.uid).toBe(checked!.uid);
    expect(open!.uid).toMatch(/^line-[0-9a-f]{14}@cairn$/);
    expect(open!.component.getAllSubcomponents('valarm')).toHaveLength(1);
    expect(checked!.component.getAllSubcomponents('valarm')).toHaveLength(0);
    // Another line, or the same text in another note, is another event.
    const other = once('Journal/2026-11-23.md::- [ ] Call the bank @remind(2026-11-23 17:00)', {
      path: 'Journal/2026-11-23.md',
    });
    expect(feedOf([other])[0]!.uid).not.toBe(open!.uid);
  });

  it('block ids and note ids stay the UID', () => {
    expect(feedOf([once('r-7k2p', {})])[0]!.uid).toBe('r-7k2p');
  });
});

describe('note events', () => {
  const events: NoteEvent[] = [
    {
      id: 'n-1',
      title: 'Dentist',
      path: 'Calendar/Dentist.md',
      allDay: false,
      zone: 'Europe/Berlin',
      repeat: { kind: 'single', date: '2026-11-24', endDate: null },
      startTime: '14:00',
      endTime: '15:00',
    },
    {
      id: 'Calendar/Holiday.md',
      title: 'Holiday',
      path: 'Calendar/Holiday.md',
      allDay: true,
      zone: 'Europe/Berlin',
      repeat: { kind: 'single', date: '2026-12-24', endDate: '2026-12-26' },
      startTime: null,
      endTime: null,
    },
    {
      id: 'n-3',
      title: 'Gym',
      path: 'Calendar/Gym.md',
      allDay: false,
      zone: 'Europe/Berlin',
      repeat: { kind: 'weekly', days: [1, 3], startRecur: '2026-11-23', endRecur: '2026-12-31' },
      startTime: '18:30',
      endTime: '19:30',
    },
  ];
  const calendar = parse(
    buildIcsFeed({ reminders: [], events, now: NOW, vaultName: 'My Vault', calendarName: 'Cairn' }),
  );
  const parsed = calendar
    .getAllSubcomponents('vevent')
    .map((component) => new ICAL.Event(component));

  it('timed, all-day and weekly events', () => {
    const dentist = parsed.find((event) => event.uid === 'n-1')!;
    expect(dentist.startDate.toUnixTime() * 1000).toBe(Date.parse('2026-11-24T13:00:00Z'));
    expect(dentist.endDate.toUnixTime() * 1000).toBe(Date.parse('2026-11-24T14:00:00Z'));
    expect(dentist.component.getFirstPropertyValue('url')).toBe(
      'obsidian://open?vault=My%20Vault&file=Calendar%2FDentist.md',
    );
    const holiday = parsed.find((event) => event.uid === 'Calendar/Holiday.md')!;
    expect(holiday.startDate.isDate).toBe(true);
    expect(holiday.startDate.toString()).toBe('2026-12-24');
    expect(holiday.endDate.toString()).toBe('2026-12-27');
    const gym = parsed.find((event) => event.uid === 'n-3')!;
    const all = expand(gym, 100).map((ms) => new Date(ms).toISOString());
    expect(all[0]).toBe('2026-11-24T17:30:00.000Z');
    expect(all[1]).toBe('2026-11-26T17:30:00.000Z');
    expect(all.at(-1)).toBe('2026-12-31T17:30:00.000Z');
    expect(all).toHaveLength(12);
  });
});

describe('text helpers', () => {
  it('escapes TEXT and folds without splitting UTF-8 characters', () => {
    expect(escapeText('a,b;c\\d\ne')).toBe('a\\,b\\;c\\\\d\\ne');
    const folded = foldLine(`SUMMARY:${'é'.repeat(80)}`);
    for (const part of folded.split('\r\n'))
      expect(Buffer.byteLength(part, 'utf8')).toBeLessThanOrEqual(75);
    expect(folded.replace(/\r\n /g, '')).toBe(`SUMMARY:${'é'.repeat(80)}`);
  });
});
