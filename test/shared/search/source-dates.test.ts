import { describe, expect, it } from 'vitest';
import type { Citation } from '../../../shared/protocol/citation';
import { sourceDate, sourceDateNotes } from '../../../shared/search/source-dates';

const NOW = Date.parse('2026-11-27T12:00:00Z');

function cite(path: string, excerpt: string, date?: string): Citation {
  return {
    type: 'note',
    path,
    title: path.replace(/\.md$/, ''),
    excerpt,
    score: 1,
    lines: [1, 1],
    ...(date === undefined ? {} : { date, date_source: 'updated' as const }),
  };
}

describe('sourceDate', () => {
  it('takes updated, else created, else the file time', () => {
    const updated = Date.parse('2026-02-02T10:00:00Z');
    const created = Date.parse('2026-01-20T10:00:00Z');
    const mtime = Date.parse('2026-11-01T10:00:00Z');
    expect(sourceDate({ updatedMs: updated, createdMs: created, mtimeMs: mtime })).toEqual({
      date: '2026-02-02',
      date_source: 'updated',
    });
    expect(sourceDate({ createdMs: created, mtimeMs: mtime })).toEqual({
      date: '2026-01-20',
      date_source: 'created',
    });
    expect(sourceDate({ mtimeMs: mtime })).toEqual({ date: '2026-11-01', date_source: 'modified' });
    expect(sourceDate({})).toBeUndefined();
  });
});

describe('sourceDateNotes', () => {
  it('warns when the newest source is over a year old, and not before', () => {
    const old = [cite('A.md', 'The fee is €90.', '2025-11-20'), cite('B.md', 'x', '2024-01-01')];
    expect(sourceDateNotes(old, NOW)).toEqual([
      'The newest of these sources (A) is from 2025-11-20, over a year ago: check it still holds.',
    ]);
    expect(sourceDateNotes([cite('A.md', 'The fee is €90.', '2025-11-28')], NOW)).toEqual([]);
  });

  it('names both sides of a disagreement, newest first', () => {
    const notes = sourceDateNotes(
      [
        cite('Office search 2024.md', 'The lease was offered at €6,200 a month.', '2024-09-30'),
        cite('Office move.md', 'The lease runs for 5 years at €6,800 a month.', '2025-11-14'),
      ],
      Date.parse('2026-01-01T00:00:00Z'),
    );
    expect(notes).toEqual([
      'Your notes disagree, newest first: “The lease runs for 5 years at €6,800 a month.” (Office move [2], 2025-11-14), but “The lease was offered at €6,200 a month.” (Office search 2024 [1], 2024-09-30).',
    ]);
  });

  it('sees no disagreement in the same number, or in different things', () => {
    const notes = sourceDateNotes(
      [
        cite('A.md', 'The fee is €90 for adults.', '2026-10-01'),
        cite('B.md', 'Adults pay a fee of €90; the photo is 35 mm wide.', '2026-10-02'),
        cite('C.md', 'The storage box costs €11.90 a month for 1 TB.', '2026-10-03'),
        cite('D.md', 'The lease runs for 5 years at €6,800 a month.', '2026-10-04'),
      ],
      NOW,
    );
    expect(notes).toEqual([]);
  });
});
