import { describe, expect, it } from 'vitest';
import { parseIsoWeek, formatIsoWeek } from '../../../shared/calendar';
import type { CalendarReminder } from '../../../shared/calendar';
import {
  buildDigest,
  digestSlot,
  latestDueWeek,
  nextDigestSlot,
  parseDigestSchedule,
  DEFAULT_DIGEST_SCHEDULE,
} from '../../../shared/digest';

const at = (iso: string) => Date.parse(iso);
const base = { status: 'active', taskChecked: false, deepLink: '' } as const;
const reminders: CalendarReminder[] = [
  {
    ...base,
    id: 'r-7k2p',
    title: 'Call the bank',
    path: 'Journal/2026-11-22.md',
    line: 5,
    schedule: { kind: 'once', at: at('2026-11-23T16:00:00Z'), zone: 'Europe/Berlin' },
    taskChecked: true,
  },
  {
    ...base,
    id: 'dentist',
    title: 'Book dentist',
    path: 'Cairn/Reminders/dentist.md',
    schedule: { kind: 'once', at: at('2026-11-25T09:00:00Z'), zone: 'Europe/Berlin' },
  },
  {
    ...base,
    id: 'r-x81c',
    title: 'Water the plants',
    path: 'Garden.md',
    line: 7,
    schedule: {
      kind: 'recurring',
      rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
      start: '2000-01-03T00:00',
      zone: 'Europe/Berlin',
    },
  },
  {
    ...base,
    id: 'gone',
    title: 'Cancelled thing',
    path: 'x.md',
    schedule: { kind: 'once', at: at('2026-12-01T09:00:00Z'), zone: 'Europe/Berlin' },
    status: 'cancelled',
  },
];

describe('buildDigest', () => {
  const digest = buildDigest({
    week: parseIsoWeek('2026-W48'),
    zone: 'Europe/Berlin',
    now: at('2026-11-30T07:00:00Z'),
    notes: [
      {
        path: 'Travel/Visa rules.md',
        title: 'Visa rules summary',
        created: at('2026-11-24T10:00:00Z'),
        modified: at('2026-11-25T10:00:00Z'),
      },
      {
        path: 'Travel/Lisbon trip.md',
        title: 'Lisbon trip',
        created: at('2026-10-01T10:00:00Z'),
        modified: at('2026-11-29T22:30:00Z'),
      },
      { path: 'Garden.md', title: 'Garden', created: null, modified: at('2026-11-23T00:30:00Z') },
      { path: 'Old.md', title: 'Old', created: null, modified: at('2026-11-22T22:59:00Z') },
      {
        path: 'Cairn/Digests/2026-W47.md',
        title: '2026-W47',
        created: at('2026-11-23T07:00:00Z'),
        modified: at('2026-11-23T07:00:00Z'),
      },
    ],
    reminders,
  });

  it('is a digest note for the ISO week with links by folder and section', () => {
    expect(digest.path).toBe('Cairn/Digests/2026-W48.md');
    expect(digest.week).toBe('2026-W48');
    expect(digest.text).toBe(
      [
        '---',
        'type: digest',
        'week: 2026-W48',
        'created: 2026-11-30T08:00:00+01:00',
        '---',
        '# Week 2026-W48',
        '',
        'Monday 23 November 2026 to Sunday 29 November 2026 (Europe/Berlin).',
        '',
        '## Notes created',
        '### Travel',
        '- [[Travel/Visa rules|Visa rules summary]]',
        '',
        '## Notes changed',
        '### Vault root',
        '- [[Garden]]',
        '### Travel',
        '- [[Travel/Lisbon trip]]',
        '',
        '## Reminders done',
        '- [x] Mon 23 Nov 17:00 [[Journal/2026-11-22#^r-7k2p|Call the bank]]',
        '',
        '## Reminders missed',
        '- Wed 25 Nov 10:00 [[Cairn/Reminders/dentist|Book dentist]]',
        '',
        '## Due next week (2026-W49)',
        '- Mon 30 Nov 09:00 [[Garden#^r-x81c|Water the plants]] (and 6 more)',
        '',
      ].join('\n'),
    );
  });

  it('takes the companion missed list when given, and one-offs that passed unticked', () => {
    const withList = buildDigest({
      week: parseIsoWeek('2026-W48'),
      zone: 'Europe/Berlin',
      now: at('2026-11-30T07:00:00Z'),
      notes: [],
      reminders,
      missed: [{ reminderId: 'r-x81c', occurrence: at('2026-11-24T08:00:00Z') }],
    });
    expect(withList.text).toContain(
      // The dentist passed unticked that week: missed, on the companion's list or not (one
      // that passed before the companion's first start never is).
      '## Reminders missed\n- Tue 24 Nov 09:00 [[Garden#^r-x81c|Water the plants]]\n- Wed 25 Nov 10:00 [[Cairn/Reminders/dentist|Book dentist]]\n\n',
    );
    expect(withList.text).toContain('## Notes created\n- none\n');
  });
});

describe('digest schedule', () => {
  it('parses the setting', () => {
    expect(parseDigestSchedule('off')).toBeNull();
    expect(parseDigestSchedule('mon 08:00')).toEqual(DEFAULT_DIGEST_SCHEDULE);
    expect(parseDigestSchedule('Sunday 20:30')).toEqual({ weekday: 6, minute: 20 * 60 + 30 });
    expect(() => parseDigestSchedule('monday 25:00')).toThrow(/not "off" or a weekday and time/);
  });
  it('Monday 08:00 writes the week that ended; the latest due week and the next slot', () => {
    const w48 = parseIsoWeek('2026-W48');
    expect(new Date(digestSlot(w48, DEFAULT_DIGEST_SCHEDULE, 'Europe/Berlin')).toISOString()).toBe(
      '2026-11-30T07:00:00.000Z',
    );
    expect(
      formatIsoWeek(
        latestDueWeek(at('2026-11-30T06:59:00Z'), DEFAULT_DIGEST_SCHEDULE, 'Europe/Berlin'),
      ),
    ).toBe('2026-W47');
    expect(
      formatIsoWeek(
        latestDueWeek(at('2026-11-30T07:00:00Z'), DEFAULT_DIGEST_SCHEDULE, 'Europe/Berlin'),
      ),
    ).toBe('2026-W48');
    expect(
      new Date(
        nextDigestSlot(at('2026-11-30T07:00:00Z'), DEFAULT_DIGEST_SCHEDULE, 'Europe/Berlin'),
      ).toISOString(),
    ).toBe('2026-12-07T07:00:00.000Z');
    const sunday = parseDigestSchedule('sun 20:00')!;
    expect(formatIsoWeek(latestDueWeek(at('2026-11-29T19:30:00Z'), sunday, 'Europe/Berlin'))).toBe(
      '2026-W48',
    );
  });
});
