import { describe, expect, it } from 'vitest';
import { readReminderNote, reminderNoteFields } from '../../../shared/reminders/index';

const PATH = 'Reminders/call-the-bank.md';

/** docs/vault-format.md's reminder note, as a YAML parser (yaml 2, core schema) hands it over. */
const designNote = {
  id: '5b0e4c1a-2f7e-4a53-9a7c-1d2b1c7f4e10',
  type: 'reminder',
  title: 'Call the bank',
  due: '2026-11-23T17:00:00+01:00',
  timezone: 'Europe/Berlin',
  repeat: 'FREQ=WEEKLY;BYDAY=MO',
  status: 'active',
  snoozed_until: '2026-11-23T17:15:00+01:00',
  created: '2026-11-22T10:31:00+01:00',
};

describe('readReminderNote: good notes', () => {
  it('reads the docs/vault-format.md example', () => {
    expect(readReminderNote(designNote, PATH)).toEqual({
      ok: true,
      note: {
        id: '5b0e4c1a-2f7e-4a53-9a7c-1d2b1c7f4e10',
        path: PATH,
        title: 'Call the bank',
        due: Date.parse('2026-11-23T16:00:00Z'),
        timezone: 'Europe/Berlin',
        repeat: 'FREQ=WEEKLY;BYDAY=MO',
        status: 'active',
        snoozedUntil: Date.parse('2026-11-23T16:15:00Z'),
        created: Date.parse('2026-11-22T09:31:00Z'),
        schedule: {
          kind: 'recurring',
          rrule: 'FREQ=WEEKLY;BYDAY=MO',
          start: '2026-11-23T17:00',
          zone: 'Europe/Berlin',
        },
      },
    });
  });

  it('round-trips through reminderNoteFields in DESIGN order', () => {
    const read = readReminderNote(designNote, PATH);
    if (!read.ok) throw new Error('expected a note');
    const fields = reminderNoteFields(read.note);
    expect(fields).toEqual([
      ['id', '5b0e4c1a-2f7e-4a53-9a7c-1d2b1c7f4e10'],
      ['type', 'reminder'],
      ['title', 'Call the bank'],
      ['due', '2026-11-23T17:00:00+01:00'],
      ['timezone', 'Europe/Berlin'],
      ['repeat', 'FREQ=WEEKLY;BYDAY=MO'],
      ['status', 'active'],
      ['snoozed_until', '2026-11-23T17:15:00+01:00'],
      ['created', '2026-11-22T10:31:00+01:00'],
    ]);
    expect(readReminderNote(Object.fromEntries(fields), PATH)).toEqual(read);
  });

  it('writes only the fields it has, with the offset of the zone at that instant', () => {
    const read = readReminderNote(
      {
        id: 'a',
        type: 'reminder',
        title: 'Summer',
        due: '2026-07-01T09:00',
        timezone: 'Europe/Berlin',
      },
      PATH,
    );
    if (!read.ok) throw new Error('expected a note');
    expect(reminderNoteFields(read.note)).toEqual([
      ['id', 'a'],
      ['type', 'reminder'],
      ['title', 'Summer'],
      ['due', '2026-07-01T09:00:00+02:00'],
      ['timezone', 'Europe/Berlin'],
      ['status', 'active'],
    ]);
  });

  it.each([
    [
      'local wall time in the zone',
      '2026-11-23T17:00',
      'America/New_York',
      '2026-11-23T22:00:00Z',
      '2026-11-23T17:00',
    ],
    [
      'space separator',
      '2026-11-23 17:00',
      'Europe/Berlin',
      '2026-11-23T16:00:00Z',
      '2026-11-23T17:00',
    ],
    [
      'Z instant, start in the zone',
      '2026-11-23T16:00:00Z',
      'Europe/Berlin',
      '2026-11-23T16:00:00Z',
      '2026-11-23T17:00',
    ],
    [
      'offset differing from the zone',
      '2026-11-23T12:00:00-05:00',
      'Europe/Berlin',
      '2026-11-23T17:00:00Z',
      '2026-11-23T18:00',
    ],
    [
      'offset without colon',
      '2026-11-23T17:00:00+0530',
      'Asia/Kolkata',
      '2026-11-23T11:30:00Z',
      '2026-11-23T17:00',
    ],
    [
      'fractional zero seconds',
      '2026-11-23T17:00:00.000+01:00',
      'Europe/Berlin',
      '2026-11-23T16:00:00Z',
      '2026-11-23T17:00',
    ],
    [
      'a DST-gap wall time moves forward',
      '2026-03-29T02:30',
      'Europe/Berlin',
      '2026-03-29T01:30:00Z',
      '2026-03-29T03:30',
    ],
  ])('due as %s', (_name, due, timezone, instant, start) => {
    const read = readReminderNote({ id: 'x', type: 'reminder', title: 't', due, timezone }, PATH);
    expect(read).toMatchObject({
      ok: true,
      note: { due: Date.parse(instant), schedule: { kind: 'once', start, zone: timezone } },
    });
  });

  it('is lenient where nothing is lost', () => {
    const read = readReminderNote(
      {
        id: 1234,
        type: 'reminder',
        due: new Date('2026-11-23T16:00:00Z'),
        repeat: null,
        snoozed_until: '',
      },
      'Reminders/Call the bank.md',
      { defaultZone: 'Europe/Berlin' },
    );
    expect(read).toEqual({
      ok: true,
      note: {
        id: '1234',
        path: 'Reminders/Call the bank.md',
        title: 'Call the bank',
        due: Date.parse('2026-11-23T16:00:00Z'),
        timezone: 'Europe/Berlin',
        status: 'active',
        schedule: { kind: 'once', start: '2026-11-23T17:00', zone: 'Europe/Berlin' },
      },
    });
  });

  it('reads `created` to the second: it records when, it does not fire', () => {
    const read = readReminderNote({ ...designNote, created: '2026-11-22T10:31:27.5+01:00' }, PATH);
    expect(read).toMatchObject({
      ok: true,
      note: { created: Date.parse('2026-11-22T09:31:27.500Z') },
    });
    expect(readReminderNote({ ...designNote, created: '2026-11-22T10:31:61+01:00' }, PATH)).toEqual(
      {
        ok: false,
        problems: [
          {
            field: 'created',
            message: 'created: `2026-11-22T10:31:61+01:00` is not a time of day',
          },
        ],
      },
    );
  });

  it('takes a fallback title (the first H1) before the file name', () => {
    const data = { id: 'x', type: 'reminder', due: '2026-11-23T17:00', timezone: 'UTC' };
    expect(readReminderNote(data, PATH, { fallbackTitle: ' Call the bank ' })).toMatchObject({
      ok: true,
      note: { title: 'Call the bank' },
    });
    expect(readReminderNote(data, PATH, { fallbackTitle: '' })).toMatchObject({
      note: { title: 'call-the-bank' },
    });
  });

  it('corrects the letter case of the zone', () => {
    expect(readReminderNote({ ...designNote, timezone: 'europe/berlin' }, PATH)).toMatchObject({
      ok: true,
      note: { timezone: 'Europe/Berlin', schedule: { zone: 'Europe/Berlin' } },
    });
  });

  it('normalises RRULEs and reads done/cancelled', () => {
    const read = readReminderNote(
      { ...designNote, repeat: 'RRULE:freq=weekly;byday=MO;interval=1', status: 'done' },
      PATH,
    );
    expect(read).toMatchObject({
      ok: true,
      note: { repeat: 'FREQ=WEEKLY;BYDAY=MO', status: 'done' },
    });
  });
});

describe('readReminderNote: bad notes name every bad field', () => {
  const base = {
    id: 'x',
    type: 'reminder',
    title: 't',
    due: '2026-11-23T17:00',
    timezone: 'Europe/Berlin',
  };

  it.each<[string, Record<string, unknown>, string[]]>([
    ['impossible day', { due: '2026-11-32T17:00' }, ['due: `2026-11-32T17:00` is not a date']],
    ['impossible month', { due: '2026-13-01T17:00' }, ['due: `2026-13-01T17:00` is not a date']],
    [
      '29 February of a common year',
      { due: '2027-02-29T09:00' },
      ['due: `2027-02-29T09:00` is not a date'],
    ],
    [
      'impossible hour',
      { due: '2026-11-23T25:00' },
      ['due: `2026-11-23T25:00` is not a time of day'],
    ],
    [
      'date only',
      { due: '2026-11-23' },
      ['due: `2026-11-23` is not a date and time (like 2026-11-23T17:00:00+01:00)'],
    ],
    [
      'words',
      { due: 'tomorrow' },
      ['due: `tomorrow` is not a date and time (like 2026-11-23T17:00:00+01:00)'],
    ],
    [
      'seconds',
      { due: '2026-11-23T17:00:30' },
      ['due: `2026-11-23T17:00:30`: seconds must be 00 (reminders have minute resolution)'],
    ],
    [
      'offset',
      { due: '2026-11-23T17:00+25:00' },
      ['due: `2026-11-23T17:00+25:00` has an impossible UTC offset +25:00'],
    ],
    [
      'number',
      { due: 20261123 },
      ['due: `20261123` is not a date and time (like 2026-11-23T17:00:00+01:00)'],
    ],
    [
      'missing due',
      { due: undefined },
      ['due: missing (a date and time like 2026-11-23T17:00:00+01:00)'],
    ],
    ['invalid Date', { due: new Date(Number.NaN) }, ['due: is not a valid date']],
    ['type', { type: 'note' }, ['type: `note` is not reminder']],
    ['missing type', { type: undefined }, ['type: missing (must be reminder)']],
    ['missing id', { id: undefined }, ['id: missing']],
    ['empty id', { id: '  ' }, ['id: is empty']],
    ['list id', { id: ['a'] }, ['id: `["a"]` is not text']],
    ['control character in id', { id: 'a\u0000b' }, ['id: contains a control character']],
    ['long title', { title: 'x'.repeat(501) }, ['title: is longer than 500 characters']],
    ['object title', { title: { a: 1 } }, ['title: `{"a":1}` is not text']],
    [
      'zone',
      { timezone: 'Mars/Olympus' },
      ['timezone: `Mars/Olympus` is not an IANA time zone (like Europe/Berlin)'],
    ],
    [
      'missing zone',
      { timezone: undefined },
      ['timezone: missing (an IANA zone like Europe/Berlin)'],
    ],
    ['status', { status: 'paused' }, ['status: `paused` is not one of active, done, cancelled']],
    [
      'repeat never occurs',
      { repeat: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' },
      [
        'repeat: `FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`: RRULE never occurs: no date matches all of its BY parts',
      ],
    ],
    ['repeat not text', { repeat: 7 }, ['repeat: `7` is not an RRULE (like FREQ=WEEKLY;BYDAY=MO)']],
    [
      'snooze',
      { snoozed_until: 'later' },
      ['snoozed_until: `later` is not a date and time (like 2026-11-23T17:00:00+01:00)'],
    ],
    [
      'created',
      { created: '2026-02-30T10:00:00+01:00' },
      ['created: `2026-02-30T10:00:00+01:00` is not a date'],
    ],
    [
      'control characters quoted escaped',
      { status: 'a\u0007' },
      ['status: `a\\u0007` is not one of active, done, cancelled'],
    ],
    [
      'several at once',
      { type: 'task', due: '2026-11-32T17:00', status: 'x' },
      [
        'type: `task` is not reminder',
        'due: `2026-11-32T17:00` is not a date',
        'status: `x` is not one of active, done, cancelled',
      ],
    ],
  ])('%s', (_name, change, expected) => {
    const read = readReminderNote({ ...base, ...change }, PATH);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problems.map((problem) => problem.message)).toEqual(expected);
    expect(
      !read.ok &&
        read.problems.every((problem) => problem.message.startsWith(`${problem.field}: `)),
    ).toBe(true);
  });

  it('a missing zone with a usable default is fine, a bad default is not used', () => {
    const { timezone: _, ...withoutZone } = base;
    expect(readReminderNote(withoutZone, PATH, { defaultZone: 'Asia/Kolkata' })).toMatchObject({
      ok: true,
      note: { timezone: 'Asia/Kolkata' },
    });
    expect(readReminderNote(withoutZone, PATH, { defaultZone: 'Bad/Zone' }).ok).toBe(false);
  });

  it('rejects input that is not a mapping', () => {
    for (const data of [null, [], 'text']) {
      expect(readReminderNote(data as unknown as Record<string, unknown>, PATH)).toEqual({
        ok: false,
        problems: [{ field: '', message: 'front matter is not a mapping' }],
      });
    }
  });
});
