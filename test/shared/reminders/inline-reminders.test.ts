import { describe, expect, it } from 'vitest';
import { findInlineReminders, taskStateOf } from '../../../shared/reminders/index';
import type { InlineRemindersResult, InlineSyntaxes } from '../../../shared/reminders/index';

const ZONE = 'Europe/Berlin';
const PATH = 'Projects/Errands.md';

function read(text: string, extra: Partial<Parameters<typeof findInlineReminders>[1]> = {}) {
  return findInlineReminders(text, { path: PATH, defaultZone: ZONE, ...extra });
}

function messages(result: InlineRemindersResult): string[] {
  return result.problems.map((problem) => problem.message);
}

describe('findInlineReminders: docs/vault-format.md examples', () => {
  const doc = [
    '- [ ] Call the bank @remind(2026-11-23 17:00) ^r-7k2p',
    'Water the plants @remind(every monday 09:00) ^r-x81c',
    '- [ ] Renew passport @remind(2027-01-10 09:00 America/New_York) ^r-q0d4',
    'Standup notes @remind(RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30) ^r-m3n9',
  ].join('\n');

  it('reads all four with title, block id, task state and schedule', () => {
    const { reminders, problems } = read(doc);
    expect(problems).toEqual([]);
    expect(
      reminders.map((r) => [r.id, r.line, r.title, r.blockId, r.taskState, r.schedule, r.syntax]),
    ).toEqual([
      [
        'r-7k2p',
        1,
        'Call the bank',
        'r-7k2p',
        'open',
        { kind: 'once', start: '2026-11-23T17:00', zone: ZONE },
        'cairn',
      ],
      [
        'r-x81c',
        2,
        'Water the plants',
        'r-x81c',
        'none',
        {
          kind: 'recurring',
          rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
          start: '2000-01-03T00:00',
          zone: ZONE,
        },
        'cairn',
      ],
      [
        'r-q0d4',
        3,
        'Renew passport',
        'r-q0d4',
        'open',
        { kind: 'once', start: '2027-01-10T09:00', zone: 'America/New_York' },
        'cairn',
      ],
      [
        'r-m3n9',
        4,
        'Standup notes',
        'r-m3n9',
        'none',
        {
          kind: 'recurring',
          rrule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9;BYMINUTE=30',
          start: '2000-01-03T00:00',
          zone: ZONE,
        },
        'cairn',
      ],
    ]);
  });

  it('gives absolute token offsets for decorations', () => {
    const { reminders } = read(doc);
    for (const reminder of reminders) {
      expect(doc.slice(reminder.from, reminder.to)).toMatch(/^@remind\(.*\)$/);
      expect(doc.slice(reminder.lineOffset).startsWith(doc.split('\n')[reminder.line - 1]!)).toBe(
        true,
      );
    }
  });
});

describe('findInlineReminders: identity, tasks, titles', () => {
  it('falls back to path + line text without a block id', () => {
    const { reminders } = read('Pay rent @remind(2026-12-01 09:00)');
    expect(reminders[0]).toMatchObject({
      id: 'Projects/Errands.md::Pay rent @remind(2026-12-01 09:00)',
      identity: { kind: 'line', path: PATH, text: 'Pay rent @remind(2026-12-01 09:00)' },
    });
    expect(reminders[0]?.blockId).toBeUndefined();
  });

  it('a block id used twice identifies only its first line', () => {
    const result = read('A @remind(2026-12-01 09:00) ^r-aaaa\nB @remind(2026-12-02 09:00) ^r-aaaa');
    expect(result.reminders.map((r) => r.id)).toEqual([
      'r-aaaa',
      'Projects/Errands.md::B @remind(2026-12-02 09:00) ^r-aaaa',
    ]);
    expect(messages(result)).toEqual([
      'line 2: `^r-aaaa`: block id ^r-aaaa is already used on line 1; this reminder is identified by its text until the id is changed',
    ]);
  });

  it.each([
    ['- [ ] a', 'open'],
    ['- [x] a', 'checked'],
    ['- [X] a', 'checked'],
    ['- [-] a', 'checked'],
    ['- [/] a', 'open'],
    ['* [ ] a', 'open'],
    ['1. [x] a', 'checked'],
    ['  - [x] nested', 'checked'],
    ['> - [x] quoted', 'checked'],
    ['- a plain item', 'none'],
    ['[x] not a list', 'none'],
    ['-[x] no space', 'none'],
    ['plain', 'none'],
  ])('task state of %j is %s', (line, state) => {
    expect(taskStateOf(line)).toBe(state);
  });

  it('lists checked tasks as checked (they never fire)', () => {
    const { reminders } = read('- [x] Done already @remind(2026-11-23 17:00) ^r-done');
    expect(reminders[0]).toMatchObject({ taskState: 'checked', title: 'Done already' });
  });

  it.each([
    ['- [ ] Call the bank @remind(2026-11-23 17:00) ^r-7k2p', 'Call the bank'],
    ['  * [ ]   Call   the bank   @remind(2026-11-23 17:00)', 'Call the bank'],
    ['@remind(2026-11-23 17:00) Call first', 'Call first'],
    ['1. Buy @remind(2026-11-23 17:00) milk', 'Buy milk'],
    ['> Quoted @remind(2026-11-23 17:00)', 'Quoted'],
    ['- [ ] @remind(2026-11-23 17:00) ^r-only', 'Errands'],
    ['Pay (@2026-11-23 17:00)', 'Pay'],
    ['- [ ] Pay ⏰ 2026-11-23 10:00 📅 2026-11-24', 'Pay 📅 2026-11-24'],
  ])('title of %j is %j', (line, title) => {
    expect(read(line).reminders[0]?.title).toBe(title);
  });
});

describe('findInlineReminders: problems name line and token', () => {
  it.each([
    [
      'x\n'.repeat(11) + 'Pay @remind(2026-13-01)',
      'line 12: `@remind(2026-13-01)`: month 13 does not exist',
    ],
    [
      'Pay @remind(2026-02-30 10:00)',
      'line 1: `@remind(2026-02-30 10:00)`: February 2026 has no day 30',
    ],
    [
      'a\nb\nCall the bank @remind(tomorrow 5pm',
      'line 3, column 22: unbalanced parenthesis: "@remind(" is not closed on this line',
    ],
    [
      'Pay @remind(2026-11-23 17:00 Mars/Olympus)',
      'line 1: `@remind(2026-11-23 17:00 Mars/Olympus)`: unknown time zone "Mars/Olympus" (use an IANA name like Europe/Berlin)',
    ],
    [
      'Pay @remind(RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=9)',
      'line 1: `@remind(RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=9)`: RRULE never occurs: no date matches all of its BY parts',
    ],
    [
      'Pay @remind()',
      'line 1: `@remind()`: empty: write a time like 2026-11-23 17:00, every monday 09:00 or tomorrow 5pm',
    ],
    [
      '- [ ] Call @remind(tomorrow 5pm) ^r-nat1',
      'line 1: `@remind(tomorrow 5pm)`: unresolved natural-language time: "tomorrow 5pm" (open the note in Obsidian to turn it into a date)',
    ],
    [
      'Two @remind(2026-11-23 17:00) and @remind(2026-11-24 17:00)',
      'line 1: `@remind(2026-11-24 17:00)`: only one @remind per line; this one is ignored',
    ],
    ['Pay (@2026-13-01 10:00)', 'line 1: `(@2026-13-01 10:00)`: month 13 does not exist'],
    [
      'Pay ⏰ 2026-11-23 24:30',
      'line 1: `⏰ 2026-11-23 24:30`: 24:30 is not a time of day (00:00 to 23:59)',
    ],
  ])('%j', (text, message) => {
    expect(messages(read(text))).toEqual([message]);
  });

  it('an unresolved token is a problem with title and block id, not a reminder', () => {
    const result = read('- [ ] Call mum @remind(next monday at 8) ^r-m0m1');
    expect(result.reminders).toEqual([]);
    expect(result.problems[0]).toMatchObject({
      kind: 'unresolved',
      path: PATH,
      line: 1,
      column: 16,
      title: 'Call mum',
      blockId: 'r-m0m1',
      token: '@remind(next monday at 8)',
    });
  });

  it('an unresolved token on a checked task is not worth attention', () => {
    expect(read('- [x] Call mum @remind(tomorrow)')).toEqual({ reminders: [], problems: [] });
  });

  it('an unclosed token on a huge line keeps the problem small', () => {
    const [problem] = read(`Pay @remind(${'x'.repeat(10_000)}`).problems;
    expect(problem?.kind).toBe('unbalanced');
    expect(problem?.token.length).toBe(500);
    expect(problem?.to).toBe(10_012);
  });

  it('a nonsense body start line falls back to detecting front matter', () => {
    expect(
      read('---\na: 1\n---\nPay @remind(2026-11-23 17:00)', { bodyStartLine: Number.NaN })
        .reminders,
    ).toHaveLength(1);
  });

  it('a long token is quoted cut short', () => {
    const message = messages(read(`Pay @remind(${'x'.repeat(200)})`))[0]!;
    expect(message.length).toBeLessThan(200);
    expect(message).toContain('…`: not a time I can read');
  });

  it('keeps reading after bad lines (the rest keeps working)', () => {
    const result = read('Bad @remind(2026-13-01)\nGood @remind(2026-11-23 17:00)');
    expect(result.reminders.map((r) => r.title)).toEqual(['Good']);
    expect(result.problems).toHaveLength(1);
  });
});

describe('findInlineReminders: existing syntaxes', () => {
  it.each([
    ['- [ ] Pay (@2026-11-23 17:00)', '2026-11-23T17:00', 'reminder-plugin'],
    ['- [ ] Pay (@2026-11-23 9:05)', '2026-11-23T09:05', 'reminder-plugin'],
    ['- [ ] Pay (@2026-11-23)', '2026-11-23T09:00', 'reminder-plugin'],
    ['- [ ] Pay ⏰ 2026-11-23 10:00', '2026-11-23T10:00', 'tasks'],
    ['- [ ] Pay ⏰2026-11-23 10:00', '2026-11-23T10:00', 'tasks'],
    ['- [ ] Pay ⏰ 2026-11-23', '2026-11-23T09:00', 'tasks'],
    ['- [ ] Pay ⏰️ 2026-11-23 10:00', '2026-11-23T10:00', 'tasks'],
  ])('%j fires at %s (%s)', (line, start, syntax) => {
    const { reminders, problems } = read(line);
    expect(problems).toEqual([]);
    expect(reminders).toMatchObject([
      { syntax, schedule: { kind: 'once', start, zone: ZONE }, taskState: 'open', title: 'Pay' },
    ]);
  });

  it("reads ⏰ among other Tasks fields, which stay in the title (🔁 is Tasks', not read)", () => {
    const { reminders } = read('- [ ] Pay ⏰ 2026-11-23 🔁 every day 📅 2026-11-24');
    expect(reminders).toMatchObject([
      {
        syntax: 'tasks',
        schedule: { kind: 'once', start: '2026-11-23T09:00' },
        title: 'Pay 🔁 every day 📅 2026-11-24',
      },
    ]);
  });

  it('date-only foreign tokens take the configured default time', () => {
    const { reminders } = read('Pay (@2026-11-23)', { defaultTime: '07:30' });
    expect(reminders[0]?.schedule.start).toBe('2026-11-23T07:30');
    expect(() => read('x', { defaultTime: '7' })).toThrow(/defaultTime "7"/);
  });

  it.each([
    'Tasks due date is not a reminder 📅 2026-11-23',
    'Kanban @{2026-11-23} is not read',
    'Not the format (@ 2026-11-23 17:00)',
    'Not the format (@2026-11-23T17:00)',
    'In code `(@2026-11-23 17:00)` and `⏰ 2026-11-23`',
    'E-mail (@example.com)',
  ])('ignores %j', (line) => {
    expect(read(line)).toEqual({ reminders: [], problems: [] });
  });

  it('reads only the syntaxes switched on', () => {
    const doc = 'A @remind(2026-11-23 17:00)\nB (@2026-11-23 17:00)\nC ⏰ 2026-11-23 17:00';
    const titles = (syntaxes: Partial<InlineSyntaxes> | undefined) =>
      read(doc, syntaxes === undefined ? {} : { syntaxes }).reminders.map((r) => r.title);
    expect(titles(undefined)).toEqual(['A', 'B', 'C']);
    expect(titles({ reminderPlugin: false })).toEqual(['A', 'C']);
    expect(titles({ tasks: false, cairn: false })).toEqual(['B']);
    expect(titles({ cairn: false, reminderPlugin: false, tasks: false })).toEqual([]);
  });

  it("Cairn's token wins over a foreign one on the same line", () => {
    const { reminders } = read('Pay @remind(2026-11-25 08:00) (@2026-11-23 17:00)');
    expect(reminders).toMatchObject([{ syntax: 'cairn', schedule: { start: '2026-11-25T08:00' } }]);
  });
});

describe('findInlineReminders: code, front matter, bad input', () => {
  it('ignores front matter, fences and code spans', () => {
    const doc = [
      '---',
      'note: "@remind(2026-11-23 17:00)"',
      '---',
      '```',
      'Example @remind(2026-11-23 17:00)',
      'Example (@2026-11-23 17:00)',
      '```',
      'Inline `@remind(2026-11-23 17:00)` example',
      'Real @remind(2026-11-23 17:00)',
    ].join('\n');
    const { reminders, problems } = read(doc);
    expect(problems).toEqual([]);
    expect(reminders.map((r) => r.line)).toEqual([9]);
  });

  it('an invalid default zone is reported per token', () => {
    const result = read('A @remind(2026-11-23 17:00)\nB (@2026-11-23)', {
      defaultZone: 'Bad/Zone',
    });
    expect(result.reminders).toEqual([]);
    expect(result.problems.map((problem) => problem.reason)).toEqual([
      'unknown default time zone "Bad/Zone"',
      'unknown default time zone "Bad/Zone"',
    ]);
  });

  it('never throws on empty, huge, control-character or random input', () => {
    expect(read('')).toEqual({ reminders: [], problems: [] });
    expect(read(undefined as unknown as string)).toEqual({ reminders: [], problems: [] });
    const huge = `${'word '.repeat(2000)}@remind(2026-11-23 17:00)\n`.repeat(50);
    expect(read(huge).reminders).toHaveLength(50);
    expect(read('\u0000@remind(\u0000)\u0007(@2026-11-23)').problems.length).toBeGreaterThan(0);
    let seed = 3;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = [
      '@remind(',
      ')',
      '(@',
      '2026-11-23',
      ' 17:00',
      '⏰ ',
      '\n',
      '```',
      '`',
      '- [x] ',
      '^r-1',
      'x',
    ];
    for (let round = 0; round < 300; round++) {
      let text = '';
      for (let index = 0; index < 40; index++) text += pieces[Math.floor(random() * pieces.length)];
      const result = read(text);
      for (const problem of result.problems) expect(problem.message).toMatch(/^line \d+/);
    }
  });
});
