import { describe, expect, it } from 'vitest';
import {
  buildTaskFile,
  checkTaskFields,
  readTaskFile,
  taskNameProblem,
} from '../../../shared/tasks';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const CONTEXT = { defaultZone: 'Europe/Berlin', now: NOW, llm: false };

const HOUSE = `---
id: 3f0c2a9e-1111-4a53-9a7c-1d2b1c7f4e10
type: task
schedule: 0 17 * * FRI
timezone: Europe/Berlin
enabled: true
action: ask
question: What did I write about the house this week?
within: week
deliver: [note, push]
---
Every Friday at five.
`;

describe('readTaskFile', () => {
  it('reads a hand-written cron task with its defaults', () => {
    const read = readTaskFile('Cairn/Tasks/House.md', HOUSE, CONTEXT);
    expect(read.kind).toBe('task');
    if (read.kind !== 'task') return;
    expect(read.task).toMatchObject({
      id: '3f0c2a9e-1111-4a53-9a7c-1d2b1c7f4e10',
      name: 'House',
      schedule: { kind: 'cron', expression: '0 17 * * FRI' },
      timezone: 'Europe/Berlin',
      action: 'ask',
      input: 'What did I write about the house this week?',
      filters: { within: 'week' },
      deliver: ['note', 'push'],
      output: 'Cairn/Tasks/House (runs).md',
    });
  });

  it('reads a local once time in the task zone, moving a DST-gap time forward', () => {
    const text = HOUSE.replace('0 17 * * FRI', '2026-03-29T02:30');
    const read = readTaskFile('Cairn/Tasks/House.md', text, CONTEXT);
    if (read.kind !== 'task') throw new Error(JSON.stringify(read));
    // 02:30 does not exist in Berlin that night: 03:30 CEST, like reminders.
    expect(read.task.schedule).toEqual({ kind: 'once', at: Date.parse('2026-03-29T01:30:00Z') });
  });

  it('keeps an RRULE with a fixed default start', () => {
    const text = HOUSE.replace('0 17 * * FRI', '"RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=8"');
    const read = readTaskFile('Cairn/Tasks/House.md', text, CONTEXT);
    if (read.kind !== 'task') throw new Error(JSON.stringify(read));
    expect(read.task.schedule).toEqual({
      kind: 'rrule',
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=8',
      start: '2000-01-03T00:00',
    });
  });

  it('lists every problem of a hand-edited file with its field and line', () => {
    const text = HOUSE.replace('0 17 * * FRI', '0 25 * * FRI')
      .replace('Europe/Berlin', 'Mars/Olympus')
      .replace('action: ask', 'action: summon');
    const read = readTaskFile('Cairn/Tasks/House.md', text, CONTEXT);
    expect(read.kind).toBe('invalid');
    if (read.kind !== 'invalid') return;
    expect(read.id).toBe('3f0c2a9e-1111-4a53-9a7c-1d2b1c7f4e10');
    const byField = Object.fromEntries(read.problems.map((p) => [p.field, p]));
    expect(byField['timezone']).toMatchObject({ line: 5 });
    expect(byField['action']).toMatchObject({ line: 7 });
    expect(byField['action']!.message).toContain(
      '"summon" is not one of ask, search, digest, prompt',
    );
    // The zone is bad, so the schedule is read in the default zone and still checked.
    expect(byField['schedule']).toMatchObject({ line: 4 });
    expect(byField['schedule']!.message).toMatch(/hour: 25/);
  });

  it('refuses a prompt task when no language model is configured, naming action', () => {
    const text = HOUSE.replace('action: ask', 'action: prompt').replace('question:', 'prompt:');
    const read = readTaskFile('Cairn/Tasks/House.md', text, CONTEXT);
    expect(read.kind).toBe('invalid');
    if (read.kind !== 'invalid') return;
    expect(read.problems).toEqual([
      expect.objectContaining({
        field: 'action',
        line: 7,
        message: expect.stringContaining('language model'),
      }),
    ]);
    expect(readTaskFile('Cairn/Tasks/House.md', text, { ...CONTEXT, llm: true }).kind).toBe('task');
  });

  it('reports broken YAML at its line, and ignores notes that are not tasks', () => {
    const broken = HOUSE.replace('enabled: true', 'enabled: [true');
    const read = readTaskFile('Cairn/Tasks/House.md', broken, CONTEXT);
    expect(read.kind).toBe('invalid');
    if (read.kind === 'invalid') expect(read.problems[0]!.line).toBeGreaterThanOrEqual(6);
    expect(
      readTaskFile('Cairn/Tasks/House (runs).md', '---\ntype: task-runs\n---\n', CONTEXT),
    ).toEqual({
      kind: 'not-a-task',
    });
  });
});

describe('checkTaskFields', () => {
  it.each([
    [{ schedule: 'every friday', action: 'ask', question: 'q' }, 'schedule'],
    [{ schedule: '2026-02-30T08:00', action: 'ask', question: 'q' }, 'schedule'],
    [{ schedule: 'RRULE:FREQ=SOMETIMES', action: 'ask', question: 'q' }, 'schedule'],
    [{ schedule: '0 0 31 2 *', action: 'ask', question: 'q' }, 'schedule'],
    [{ schedule: '0 8 * * *', action: 'ask' }, 'question'],
    [{ schedule: '0 8 * * *', action: 'search', query: 'x', deliver: ['email'] }, 'deliver'],
    [{ schedule: '0 8 * * *', action: 'digest', period: 'year' }, 'period'],
    [{ schedule: '0 8 * * *', action: 'ask', question: 'q', timezone: 'Berlin' }, 'timezone'],
    [{ schedule: '* * * * * *', action: 'ask', question: 'q' }, 'schedule'],
  ])('%j is refused naming %s', (fields, field) => {
    const check = checkTaskFields(fields, CONTEXT);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems.map((p) => p.field)).toContain(field);
  });
});

describe('task names and files', () => {
  it('refuses names that cannot be a file', () => {
    expect(taskNameProblem('House')).toBeNull();
    expect(taskNameProblem('a/b')).toMatch(/"\/"/);
    expect(taskNameProblem('House (runs)')).toMatch(/runs note/);
    expect(taskNameProblem('what?')).toMatch(/Windows/);
  });

  it('writes a file that reads back as the same task', () => {
    const text = buildTaskFile({
      id: 'abc',
      name: 'Invoices',
      scheduleText: 'RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9',
      timezone: 'America/New_York',
      enabled: true,
      action: 'search',
      input: 'invoice',
      filters: { tag: 'invoice' },
      deliver: ['note'],
      created: '2026-11-27T05:00:00-05:00',
    });
    const read = readTaskFile('Cairn/Tasks/Invoices.md', text, CONTEXT);
    if (read.kind !== 'task') throw new Error(JSON.stringify(read));
    expect(read.task).toMatchObject({
      id: 'abc',
      action: 'search',
      input: 'invoice',
      filters: { tag: 'invoice' },
      timezone: 'America/New_York',
      scheduleText: 'RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9',
    });
    expect(text).toContain('[[Invoices (runs)]]');
  });
});
