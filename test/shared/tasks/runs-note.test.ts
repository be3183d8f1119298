import { describe, expect, it } from 'vitest';
import { emptyRunsNote, firstLine, insertRunEntry, renderRunEntry } from '../../../shared/tasks';

const ZONE = 'Europe/Berlin';
const FIRST = Date.parse('2026-11-20T16:00:00Z');
const SECOND = Date.parse('2026-11-27T16:00:00Z');

describe('runs note', () => {
  it('puts the newest run first, dated in the zone and cited, and never writes a slot twice', () => {
    const one = renderRunEntry(FIRST, ZONE, {
      text: 'The roof is slate.',
      citations: [
        {
          type: 'note',
          path: 'Projects/House.md',
          title: 'House',
          heading: 'Roof',
          lines: [5, 7],
          excerpt: 'slate',
          score: 0.8,
        },
      ],
    });
    const two = renderRunEntry(SECOND, ZONE, { text: 'Nothing new.', citations: [] });
    let text = emptyRunsNote('t1', 'House');
    text = insertRunEntry(text, one, FIRST, ZONE);
    text = insertRunEntry(text, two, SECOND, ZONE);
    expect(insertRunEntry(text, two, SECOND, ZONE)).toBe(text);
    expect(text).toBe(
      [
        '---',
        'type: task-runs',
        'task: t1',
        '---',
        '# House: runs',
        '',
        'Newest first. Cairn adds an entry each time the task runs.',
        '',
        '## 2026-11-27 17:00 (Europe/Berlin)',
        '<!-- cairn-task-run 2026-11-27T17:00:00+01:00 -->',
        'Nothing new.',
        '',
        '## 2026-11-20 17:00 (Europe/Berlin)',
        '<!-- cairn-task-run 2026-11-20T17:00:00+01:00 -->',
        'The roof is slate.',
        '',
        'Sources:',
        '1. [[Projects/House]] › Roof, lines 5–7',
        '',
        '',
      ].join('\n'),
    );
  });

  it('keeps what the user wrote above and between entries', () => {
    const entry = renderRunEntry(FIRST, ZONE, { text: 'A', citations: [] });
    const mine = '# My notes\n\nkeep this\n';
    expect(insertRunEntry(mine, entry, FIRST, ZONE)).toBe(`${mine}\n${entry}`);
  });

  it('takes the first line without Markdown marks for a push', () => {
    expect(firstLine('\n> **Answer** here\nmore')).toBe('Answer here');
    expect(firstLine('- [[Projects/House|House]]: roof')).toBe('House: roof');
    expect(firstLine('2 notes match [[Journal/2026-11-01]]')).toBe('2 notes match 2026-11-01');
  });
});
