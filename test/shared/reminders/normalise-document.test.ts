import { describe, expect, it } from 'vitest';
import { findInlineReminders, normaliseRemindDocument } from '../../../shared/reminders/index';

/** Monday 2026-11-23 18:00 in Berlin. */
const NOW = Date.parse('2026-11-23T17:00:00Z');
const ZONE = 'Europe/Berlin';

function sequence(...values: number[]) {
  let index = 0;
  return () => values[index++ % values.length]!;
}

describe('normaliseRemindDocument', () => {
  const doc = [
    '---',
    'title: Errands @remind(tomorrow)',
    '---',
    '- [ ] Call the bank @remind(tomorrow 5pm)',
    '```',
    'Example @remind(tomorrow 5pm)',
    '```',
    'Water the plants @remind(every monday 09:00) ^r-0000',
    'Bad @remind(2026-13-01)',
    'Pay rent @remind(2026-12-01 09:00)\r',
    'Inline `@remind(friday)` example',
  ].join('\n');

  it('normalises body lines outside code, with block ids unique in the note', () => {
    const result = normaliseRemindDocument(doc, { now: NOW, zone: ZONE, random: () => 0 });
    expect(result.text.split('\n')).toEqual([
      '---',
      'title: Errands @remind(tomorrow)',
      '---',
      '- [ ] Call the bank @remind(2026-11-24 17:00) ^r-00000',
      '```',
      'Example @remind(tomorrow 5pm)',
      '```',
      'Water the plants @remind(every monday 09:00) ^r-0000',
      'Bad @remind(2026-13-01)',
      'Pay rent @remind(2026-12-01 09:00) ^r-000000\r',
      'Inline `@remind(friday)` example',
    ]);
    expect(result.problems).toEqual([{ line: 9, message: 'line 9: month 13 does not exist' }]);
    for (let index = 1; index < result.edits.length; index++) {
      expect(result.edits[index]!.from).toBeGreaterThanOrEqual(result.edits[index - 1]!.to);
    }
    // The result reads back with every reminder resolved.
    const read = findInlineReminders(result.text, { path: 'a.md', defaultZone: ZONE });
    expect(read.reminders.map((r) => r.id)).toEqual(['r-00000', 'r-0000', 'r-000000']);
    expect(read.problems.map((p) => p.kind)).toEqual(['invalid']);
  });

  it('applies edits that reproduce the returned text', () => {
    const result = normaliseRemindDocument(doc, {
      now: NOW,
      zone: ZONE,
      random: sequence(0.5, 0.1),
    });
    let text = doc;
    for (const edit of [...result.edits].reverse()) {
      text = text.slice(0, edit.from) + edit.insert + text.slice(edit.to);
    }
    expect(text).toBe(result.text);
  });

  it('only touches the given lines', () => {
    const result = normaliseRemindDocument(doc, {
      now: NOW,
      zone: ZONE,
      random: () => 0.5,
      lines: new Set([10]),
    });
    expect(result.edits).toEqual([
      { from: doc.indexOf('\r'), to: doc.indexOf('\r'), insert: ' ^r-iiii' },
    ]);
  });

  it('leaves documents without tokens alone', () => {
    for (const text of ['', 'plain', '```\n@remind(tomorrow)\n```']) {
      expect(normaliseRemindDocument(text, { now: NOW, zone: ZONE, random: Math.random })).toEqual({
        text,
        edits: [],
        problems: [],
      });
    }
  });
});
