import { describe, expect, it } from 'vitest';
import { EXCERPT_MAX_CHARS, bestExcerpt } from '../../../shared/search/index';

const filler = (words: number, word = 'lorem') =>
  Array.from({ length: words }, () => word).join(' ');

const highlighted = (excerpt: ReturnType<typeof bestExcerpt>) =>
  excerpt.highlights.map((range) => excerpt.text.slice(range.start, range.end));

describe('bestExcerpt', () => {
  it('returns a short text whole, with highlights as offsets', () => {
    const excerpt = bestExcerpt('The visa fee is $50.', ['visa', 'fee']);
    expect(excerpt.text).toBe('The visa fee is $50.');
    expect(excerpt.highlights).toEqual([
      { start: 4, end: 8 },
      { start: 9, end: 12 },
    ]);
  });

  it('finds the window with the most distinct terms, cut at word boundaries with ellipses', () => {
    const text = `${filler(60)} visa alone here. ${filler(60)} The visa fee is fifty dollars. ${filler(60)}`;
    const excerpt = bestExcerpt(text, ['visa', 'fee']);
    expect(excerpt.text.length).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(excerpt.text).toContain('The visa fee is fifty dollars.');
    expect(excerpt.text.startsWith('…lorem')).toBe(true);
    expect(excerpt.text.endsWith('lorem…')).toBe(true);
    expect(highlighted(excerpt)).toEqual(['visa', 'fee']);
    expect(text.slice(excerpt.source.start, excerpt.source.end)).toContain('visa fee');
  });

  it('matches terms as case-insensitive word prefixes', () => {
    expect(highlighted(bestExcerpt('Reminders and REMINDING, not unremind', ['remind']))).toEqual([
      'Reminders',
      'REMINDING',
    ]);
  });

  it('falls back to the start of the text when no term occurs', () => {
    const excerpt = bestExcerpt(`${filler(100)} end`, ['absent']);
    expect(excerpt.text.startsWith('lorem')).toBe(true);
    expect(excerpt.text.endsWith('…')).toBe(true);
    expect(excerpt.highlights).toEqual([]);
    expect(excerpt.source.start).toBe(0);
  });

  it('drops Markdown a reader should not see and collapses white space', () => {
    const excerpt = bestExcerpt(
      '## Key points\n- [ ] **Fee** is [[Fees|fifty]] see [site](https://x.example)',
      ['fee'],
    );
    expect(excerpt.text).toBe('Key points Fee is fifty see site');
    expect(highlighted(excerpt)).toEqual(['Fee']);
  });

  it('drops the block id that ends a line, not a caret inside the text', () => {
    const excerpt = bestExcerpt(
      '- my passport expires 2032-05 (added 2026-11-25) ^m-9q2x\n- x^2 grows ^r-7k2p\nsee ^this',
      ['passport'],
    );
    expect(excerpt.text).toBe('my passport expires 2032-05 (added 2026-11-25) x^2 grows see');
  });

  it.each([
    ['one long word', 'x'.repeat(1000)],
    ['emoji', '😀'.repeat(500)],
    ['empty', ''],
  ])('stays within the limit for %s', (_, text) => {
    const excerpt = bestExcerpt(text, ['x']);
    expect(excerpt.text.length).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(excerpt.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
