import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../shared/markdown';
import { checkNewReminder, writeNewReminder } from '../../../plugin/reminders/new-reminder-form';

const ZONE = 'Europe/Berlin';
const NOW = Date.parse('2026-11-23T08:00:00Z');
const at = { now: NOW, zone: ZONE };

describe('checkNewReminder', () => {
  it('reads natural language and shows the time before saving', () => {
    const check = checkNewReminder(
      { title: ' Call the bank ', when: 'tomorrow 5pm', repeat: '' },
      at,
    );
    expect(check).toMatchObject({
      ok: true,
      title: 'Call the bank',
      due: '2026-11-24T17:00:00+01:00',
      zone: ZONE,
      preview: 'tomorrow 17:00',
    });
  });

  it('reads absolute times with a zone and an every-phrase repeat', () => {
    const check = checkNewReminder(
      { title: 'Standup', when: '2026-11-24 09:30 America/New_York', repeat: 'every weekday' },
      at,
    );
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.due).toBe('2026-11-24T09:30:00-05:00');
    expect(check.repeat).toMatch(/^FREQ=/);
  });

  it('names the field and the reason for every bad input', () => {
    const cases: Array<[Partial<{ title: string; when: string; repeat: string }>, string]> = [
      [{ title: '' }, 'title'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ title: 'a\u0000b' }, 'title'],
      [{ when: '' }, 'when'],
      [{ when: 'blurgh' }, 'when'],
      [{ when: 'yesterday' }, 'when'],
      [{ when: '2020-01-01 09:00' }, 'when'],
      [{ when: 'every monday 09:00' }, 'when'],
      [{ repeat: 'FREQ=NOPE' }, 'repeat'],
      [{ repeat: 'every blue moon' }, 'repeat'],
    ];
    for (const [change, field] of cases) {
      const check = checkNewReminder(
        { title: 'T', when: 'tomorrow 5pm', repeat: '', ...change },
        at,
      );
      expect(check, JSON.stringify(change)).toMatchObject({ ok: false, field });
      if (!check.ok) expect(check.reason.length).toBeGreaterThan(5);
    }
  });

  it('an invalid vault zone is a clear problem, not a crash', () => {
    const check = checkNewReminder(
      { title: 'T', when: 'tomorrow 5pm', repeat: '' },
      { now: NOW, zone: 'Bad/Zone' },
    );
    expect(check.ok).toBe(false);
  });
});

describe('writeNewReminder', () => {
  it('writes a readable reminder note under a collision-safe name', async () => {
    const written = new Map<string, string>([['Cairn/Reminders/call-the-bank.md', 'taken']]);
    const check = checkNewReminder(
      { title: 'Call the bank', when: 'tomorrow 5pm', repeat: '' },
      at,
    );
    if (!check.ok) throw new Error(check.reason);
    let byte = 0;
    const path = await writeNewReminder(check, {
      folder: 'Cairn/Reminders',
      // A real clock has seconds; reminder notes keep minutes only.
      now: NOW + 26_512,
      randomBytes: (count) => Uint8Array.from({ length: count }, () => (byte += 7) & 0xff),
      files: {
        exists: (candidate) => written.has(candidate),
        create: (candidate, text) => {
          written.set(candidate, text);
          return Promise.resolve();
        },
      },
    });
    expect(path).toMatch(/^Cairn\/Reminders\/call-the-bank-[0-9a-f]{4}\.md$/);
    const parsed = parseFrontMatter(written.get(path)!);
    expect(parsed.ok && parsed.data).toMatchObject({
      type: 'reminder',
      title: 'Call the bank',
      due: '2026-11-24T17:00:00+01:00',
      timezone: ZONE,
      status: 'active',
      created: '2026-11-23T09:00:00+01:00',
    });
  });
});
