import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../shared/markdown/index';
import {
  buildReminderNoteFile,
  readReminderNote,
  type ReminderNote,
} from '../../../shared/reminders/index';

const PATH = 'Reminders/call-the-bank.md';

function note(data: Record<string, unknown>): ReminderNote {
  const read = readReminderNote(data, PATH);
  if (!read.ok) throw new Error(read.problems.map((problem) => problem.message).join('; '));
  return read.note;
}

describe('buildReminderNoteFile', () => {
  const bank = note({
    id: '5b0e4c1a-2f7e-4a53-9a7c-1d2b1c7f4e10',
    type: 'reminder',
    title: 'Call the bank',
    due: '2026-11-23T17:00:00+01:00',
    timezone: 'Europe/Berlin',
    repeat: 'FREQ=WEEKLY;BYDAY=MO',
    status: 'active',
    snoozed_until: '2026-11-23T17:15:00+01:00',
    created: '2026-11-22T10:31:00+01:00',
  });

  it('writes the docs/vault-format.md reminder note', () => {
    expect(buildReminderNoteFile(bank, 'Link back: [[Meeting 2026-11-22]]')).toBe(
      [
        '---',
        'id: 5b0e4c1a-2f7e-4a53-9a7c-1d2b1c7f4e10',
        'type: reminder',
        'title: Call the bank',
        'due: 2026-11-23T17:00:00+01:00',
        'timezone: Europe/Berlin',
        'repeat: FREQ=WEEKLY;BYDAY=MO',
        'status: active',
        'snoozed_until: 2026-11-23T17:15:00+01:00',
        'created: 2026-11-22T10:31:00+01:00',
        '---',
        'Link back: [[Meeting 2026-11-22]]',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['the DESIGN example', bank],
    [
      'a title YAML would misread',
      note({
        id: 'a1',
        type: 'reminder',
        title: 'yes: #1 "quoted" [x] 2026-11-23',
        due: '2026-07-01T09:00',
        timezone: 'America/New_York',
        status: 'done',
      }),
    ],
    [
      'a half-hour zone',
      note({
        id: '42',
        type: 'reminder',
        title: 'Chai',
        due: '2026-11-23T17:00',
        timezone: 'Asia/Kolkata',
      }),
    ],
  ])('round-trips %s through parseFrontMatter + readReminderNote', (_name, original) => {
    const text = buildReminderNoteFile(original, 'body');
    const parsed = parseFrontMatter(text);
    if (!parsed.ok) throw new Error('front matter did not parse');
    expect(parsed.body).toBe('body\n');
    expect(readReminderNote(parsed.data, PATH)).toEqual({ ok: true, note: original });
  });
});
