import { describe, expect, it } from 'vitest';
import { formatSourceList } from '../../../companion/tools/client-tools';

describe('formatSourceList', () => {
  it('numbers notes by heading and lines, one line as "line n", PDFs by page', () => {
    expect(
      formatSourceList([
        {
          type: 'note',
          path: 'Travel/Visa rules.md',
          title: 'Visa rules summary',
          heading: 'Key points',
          lines: [10, 13],
          excerpt: 'valid 90 days',
          score: 1,
        },
        {
          type: 'note',
          path: 'Travel/Visa rules.md',
          title: 'Visa rules summary',
          lines: [13, 13],
          excerpt: 'fee is €90',
          score: 1,
        },
        { type: 'pdf', path: 'Papers/trace.pdf', title: 'Trace', page: 3, excerpt: 'x', score: 1 },
      ]),
    ).toBe(
      [
        '[1]: Travel/Visa rules.md#Key points, lines 10–13',
        '[2]: Travel/Visa rules.md, line 13',
        '[3]: Papers/trace.pdf, page 3',
      ].join('\n'),
    );
    expect(formatSourceList([])).toBe('');
  });
});
