import { describe, expect, it } from 'vitest';
import { changedRows, sideBySideDiff } from '../../../shared/markdown/line-diff';

describe('sideBySideDiff', () => {
  it('aligns shared lines and pairs replaced ones', () => {
    const diff = sideBySideDiff(
      '# Trip\nday 1\nday 2\nend\n',
      '# Trip\nday one\nday 2\nmore\nend\n',
    );
    expect(diff).toEqual({
      ok: true,
      rows: [
        { kind: 'same', left: '# Trip', right: '# Trip' },
        { kind: 'changed', left: 'day 1', right: 'day one' },
        { kind: 'same', left: 'day 2', right: 'day 2' },
        { kind: 'right', right: 'more' },
        { kind: 'same', left: 'end', right: 'end' },
      ],
    });
    if (diff.ok) expect(changedRows(diff.rows)).toBe(2);
  });

  it('handles empty sides and CRLF', () => {
    expect(sideBySideDiff('', 'a\n')).toEqual({ ok: true, rows: [{ kind: 'right', right: 'a' }] });
    expect(sideBySideDiff('a\r\nb\r\n', '')).toEqual({
      ok: true,
      rows: [
        { kind: 'left', left: 'a' },
        { kind: 'left', left: 'b' },
      ],
    });
    const same = sideBySideDiff('x\r\n', 'x\n');
    expect(same.ok && changedRows(same.rows)).toBe(0);
  });
});
