import { describe, expect, it } from 'vitest';
import { asCitation, citationHref, citationPlace } from '../../../companion/web/citation-link';

describe('citation links on the phone', () => {
  const note = asCitation({
    type: 'note',
    path: 'Travel/Visa rules.md',
    title: 'Visa rules summary',
    heading: 'Key points',
    lines: [12, 18],
    excerpt: 'Fee is €90',
    score: 0.8,
  })!;

  it('opens a note at its heading, a PDF at its page', () => {
    expect(citationHref('My Vault', note)).toBe(
      'obsidian://open?vault=My%20Vault&file=Travel%2FVisa%20rules.md%23Key%20points',
    );
    const pdf = asCitation({ type: 'pdf', path: 'Scans/visa.pdf', title: 'visa', page: 3 })!;
    expect(new URL(citationHref('v', pdf)).searchParams.get('file')).toBe('Scans/visa.pdf#page=3');
    const top = asCitation({ type: 'note', path: 'Welcome.md', title: 'Welcome', lines: [1, 4] })!;
    expect(new URL(citationHref('v', top)).searchParams.get('file')).toBe('Welcome.md');
  });

  it('says where the passage is', () => {
    expect(citationPlace(note)).toBe('Travel/Visa rules.md › Key points · lines 12–18');
    expect(citationPlace(asCitation({ path: 'a.md', title: 'a', lines: [3, 3] })!)).toBe(
      'a.md · line 3',
    );
    expect(citationPlace(asCitation({ path: 'b.pdf', title: 'b', page: 2 })!)).toBe(
      'b.pdf · page 2',
    );
  });

  it('skips what is not a citation and falls back to the path for a missing title', () => {
    expect(asCitation('Travel/Visa rules.md')).toBeNull();
    expect(asCitation({ title: 'no path' })).toBeNull();
    expect(asCitation({ path: 'x.md', title: '' })?.title).toBe('x.md');
  });
});
